"""Messages that cross widgets: each carries its sender, and is caught with a typed @on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from tui_course.ui.widgets.code_exercise import CodeExerciseView


class CodeChecked(Message):
    """A check of a code question finished: the quiz records it as an attempt."""

    def __init__(self, exercise: CodeExerciseView, code: str, verdict: Any) -> None:
        super().__init__()
        self.exercise = exercise
        self.code = code
        self.verdict = verdict

    @property
    def control(self) -> CodeExerciseView:
        return self.exercise
