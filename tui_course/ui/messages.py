"""The messages that cross widgets, each carrying the widget that sent it.

Caught with typed handlers (`@on(QuizFinished)`), so a handler reads `event.quiz_id`
without a cast, and `event.control` names the sender for `@on(..., selector)`.
Every message here has a handler; one that nobody catches is not sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from tui_course.progress.records import TrainingRecord
    from tui_course.training.options import TrainOptions
    from tui_course.ui.widgets.code_exercise import CodeExerciseView
    from tui_course.ui.widgets.heatmap_view import HeatmapView
    from tui_course.ui.widgets.lesson_view import LessonView
    from tui_course.ui.widgets.quiz_view import QuizView
    from tui_course.ui.widgets.training_form import TrainingForm
    from tui_course.ui.widgets.training_panel import TrainingPanel


class QuizMessage(Message):
    """Something happened in a quiz pass; the app's outline marks may have moved."""

    def __init__(self, view: QuizView, quiz_id: str) -> None:
        super().__init__()
        self.view = view
        self.quiz_id = quiz_id

    @property
    def control(self) -> QuizView:
        return self.view


class QuizSaved(QuizMessage):
    """A question closed and its attempt is stored: a mark ("[~] 1/3") or the review count
    may move."""


class QuizFinished(QuizMessage):
    """The student reached the end of a pass: its score is final, the class may hear of it."""


class LessonFinished(Message):
    """The student reached the end of a lesson."""

    def __init__(self, view: LessonView, lesson_id: str) -> None:
        super().__init__()
        self.view = view
        self.lesson_id = lesson_id

    @property
    def control(self) -> LessonView:
        return self.view


class HeatmapRowClicked(Message):
    """A click on a heatmap's row: the figure around it makes that word the query."""

    def __init__(self, view: HeatmapView, row: int) -> None:
        super().__init__()
        self.view = view
        self.row = row

    @property
    def control(self) -> HeatmapView:
        return self.view


class TrainingRequested(Message):
    """The training form was submitted with valid options (Train, ctrl+t or Enter)."""

    def __init__(self, form: TrainingForm, options: TrainOptions) -> None:
        super().__init__()
        self.form = form
        self.options = options

    @property
    def control(self) -> TrainingForm:
        return self.form


class TrainingRefused(Message):
    """The training form was submitted with a field that is wrong; `reason` names it."""

    def __init__(self, form: TrainingForm, reason: str) -> None:
        super().__init__()
        self.form = form
        self.reason = reason

    @property
    def control(self) -> TrainingForm:
        return self.form


class TrainingCancelRequested(Message):
    """The form's Cancel button."""

    def __init__(self, form: TrainingForm) -> None:
        super().__init__()
        self.form = form

    @property
    def control(self) -> TrainingForm:
        return self.form


class TrainingFinished(Message):
    """A run ended with a result (and has been kept); the app says so wherever the student is."""

    def __init__(self, panel: TrainingPanel, record: TrainingRecord) -> None:
        super().__init__()
        self.panel = panel
        self.record = record

    @property
    def control(self) -> TrainingPanel:
        return self.panel


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
