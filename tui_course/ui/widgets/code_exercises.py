"""The quiz's maker of code-question editors, apart from the editor itself.

The quiz view holds one from its start, but a returning student's quiz may have no code
question: the editor's module (TextArea, tree-sitter, the sandbox client) loads when the
first code question shows, not when the quiz opens.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_course.code_check_service import CodeChecker
    from tui_course.content.models import Question
    from tui_course.ui.widgets.code_exercise import CodeExerciseView


class CodeExercises:
    """Builds the editor for each code question and keeps the one CodeChecker (with its
    warm sandboxed worker) for the app: started when the first code question opens, so a
    student who never writes code never starts a sandbox."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._checker: CodeChecker | None = None

    @property
    def checker(self) -> CodeChecker:
        if self._checker is None:
            from tui_course.code_check_service import CodeChecker
            from tui_course.ui.widgets import code_exercise  # its limits: tests shorten them

            self._checker = CodeChecker(code_exercise.CHECK_LIMITS)
        return self._checker

    def view(self, question: Question, draft_key: tuple[str, int]) -> CodeExerciseView:
        from tui_course.render.code import VerdictLines
        from tui_course.shell_access import editor_available
        from tui_course.ui.widgets.code_exercise import CodeExerciseView

        spec = question.code
        assert spec is not None  # a code question always has its spec
        checker = self.checker
        checker.prepare(question)  # the reference's results, computed while the student reads
        return CodeExerciseView(
            starter=spec.starter,
            solution=spec.solution,
            draft_key=draft_key,
            data_dir=self.data_dir,
            checker=lambda code: checker.check(question, code),
            describe=VerdictLines,
            warning=checker.warning,
            editor_allowed=editor_available(),
            classes="code-exercise",
        )

    def close(self) -> None:
        """Stop the warm worker (a child process): on leaving the quiz or the app."""
        if self._checker is not None:
            self._checker.close()
            self._checker = None
