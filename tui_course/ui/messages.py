"""Messages that cross widgets, each carrying the widget that sent it (caught with @on)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tui_course.progress.store import TrainingRecord
    from tui_course.training.options import TrainOptions
    from tui_course.ui.widgets.training_form import TrainingForm
    from tui_course.ui.widgets.training_panel import TrainingPanel


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
