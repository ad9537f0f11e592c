"""The quiz's maker of code-question editors, apart from the editor itself.

The quiz view holds one from its start, but a returning student's quiz may have no code
question: the editor's module (TextArea, tree-sitter, the sandbox client) loads when the
first code question shows, not when the quiz opens.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tui_course.codecheck.service import CodeChecker
    from tui_course.content.models import Question
    from tui_course.ui.widgets.code_exercise import CodeExerciseView


class CodeExercises:
    """Builds the editor for each code question and keeps the one CodeChecker (with its
    warm sandboxed worker) for the app: started when the first code question opens, so a
    student who never writes code never starts a sandbox."""

    def __init__(self, data_dir: Path, content_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self.content_dir = content_dir  # shown empty to student code: its references are keys
        self._checker: CodeChecker | None = None
        self._lock = threading.Lock()  # made by the first of a preparing and a checking thread
        self._closed = False

    @property
    def checker(self) -> CodeChecker:
        with self._lock:
            if self._closed:  # a thread finishing after the quiz was left: no new worker
                raise RuntimeError("the quiz was closed")
            if self._checker is None:
                from tui_course.codecheck.service import CodeChecker
                from tui_course.ui.widgets import code_exercise  # its limits: tests shorten them

                hide = [self.content_dir] if self.content_dir is not None else []
                self._checker = CodeChecker(
                    code_exercise.CHECK_LIMITS, data_dir=self.data_dir, hide=hide
                )
            return self._checker

    def view(self, question: Question, draft_key: tuple[str, int]) -> CodeExerciseView:
        """The view, cheap to make: the checker starts (and the reference's results are
        computed) in a thread once the question is on screen, not before it shows."""
        from tui_course.runtime.shell_access import editor_available
        from tui_course.ui.widgets.code_exercise import CodeExerciseView

        spec = question.code
        assert spec is not None  # a code question always has its spec

        def prepare() -> str | None:
            checker = self.checker
            checker.prepare(question)  # the reference's results, while the student reads
            return checker.warning

        return CodeExerciseView(
            starter=spec.starter,
            solution=spec.solution,
            draft_key=draft_key,
            data_dir=self.data_dir,
            checker=lambda code: self.checker.check(question, code),
            describe=_describe,
            prepare=prepare,
            editor_allowed=editor_available(),
            classes="code-exercise",
        )

    def close(self) -> None:
        """Stop the warm worker (a child process): on leaving the quiz or the app."""
        with self._lock:
            checker, self._checker, self._closed = self._checker, None, True
        if checker is not None:
            checker.close()


def _describe(verdict: Any) -> RenderableType:
    """The verdict's renderable (render/code.py, which loads numpy: only once there is one)."""
    from tui_course.render.code import VerdictLines

    return VerdictLines(verdict)
