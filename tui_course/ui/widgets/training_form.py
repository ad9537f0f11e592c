"""The training lab's form: the model, the numbers, Train and Cancel. It only posts what
was asked (its own Requested, Refused and CancelRequested messages); the panel decides
what to do with it, and draws the buttons from its state (whether a run is going or
training can run is the panel's state's to say, not the form's)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Select, Static

from tui_course import specs
from tui_course.training.options import TrainOptions
from tui_course.ui.widgets.text_box import TextBox

# The form's number boxes: (spec, label); ranges and defaults live in tui_course.specs.
NUMBER_FIELDS = tuple(
    zip(specs.TRAINING_FORM, ("digits", "epochs", "batch", "seed", "threads"), strict=True)
)
FIELD_LABEL_WIDTH = 14  # a number box's width at 80 columns, less its frame


def field_label(spec: specs.IntSpec, label: str) -> str:
    """The box's name with its range when that fits above the box ('epochs 1-1,000'):
    a student learnt the limits only from the error after pressing Train."""
    with_range = f"{label} {spec.low:,}-{spec.high:,}"
    return with_range if len(with_range) <= FIELD_LABEL_WIDTH else label


class TrainingForm(Vertical):
    class Requested(Message):
        """Submitted with valid options (Train, ctrl+t or Enter)."""

        def __init__(self, form: TrainingForm, options: TrainOptions) -> None:
            super().__init__()
            self.form = form
            self.options = options

        @property
        def control(self) -> TrainingForm:
            return self.form

    class Refused(Message):
        """Submitted with a field that is wrong; `reason` names it."""

        def __init__(self, form: TrainingForm, reason: str) -> None:
            super().__init__()
            self.form = form
            self.reason = reason

        @property
        def control(self) -> TrainingForm:
            return self.form

    class CancelRequested(Message):
        """The Cancel button."""

        def __init__(self, form: TrainingForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> TrainingForm:
            return self.form

    # Under 60 columns the fields go two to a row: see Screen.-tiny in app.tcss.
    DEFAULT_CSS = """
    TrainingForm {
        height: auto;
    }
    TrainingForm .train-label {
        color: $text-muted;
    }
    TrainingForm .train-form {
        height: auto;
    }
    TrainingForm .train-field {
        width: 1fr;
        height: auto;
    }
    TrainingForm .train-field Input {
        width: 100%;
    }
    TrainingForm #train-model {
        width: 24;
    }
    TrainingForm .train-buttons {
        height: auto;
        margin: 1 0 0 0;
    }
    TrainingForm .train-buttons Button {
        margin-right: 2;
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="train-form"):
            yield Select(
                [(name, name) for name in specs.MODELS.choices],
                value=specs.MODELS.default,
                allow_blank=False,
                id="train-model",
            )
            yield Checkbox("positions", value=True, id="train-position")
        with Horizontal(classes="train-form"):
            defaults = TrainOptions()
            for spec, label in NUMBER_FIELDS:
                with Vertical(classes="train-field"):
                    yield Static(field_label(spec, label), classes="train-label", markup=False)
                    yield TextBox(
                        str(getattr(defaults, spec.name)),
                        type="integer",
                        id=f"train-{spec.name}",
                        tooltip=spec.flag_help(),
                    )
        with Horizontal(classes="train-buttons"):
            yield Button("Train", id="train-start", variant="primary")
            yield Button("Cancel", id="train-cancel", disabled=True)

    def read_options(self) -> TrainOptions:
        """Options from the boxes; raises ValueError naming the field that is wrong."""
        values: dict[str, int] = {}
        for spec, label in NUMBER_FIELDS:
            text = self.query_one(f"#train-{spec.name}", Input).value.strip()
            if not text.lstrip("-").isdigit() or spec.problem(int(text)) is not None:
                raise ValueError(f"{label} must be a whole number {spec.allowed()}")
            values[spec.name] = int(text)
        model = str(self.query_one("#train-model", Select).value)
        position = self.query_one("#train-position", Checkbox).value
        return TrainOptions(model=model, position=position, **values)

    def submit(self) -> None:
        """Post the options, or what is wrong with them (the panel ignores either while a
        run is going or training cannot run)."""
        try:
            options = self.read_options()
        except ValueError as error:
            self.post_message(self.Refused(self, f"Cannot start: {error}."))
            return
        self.post_message(self.Requested(self, options))

    def show_buttons(self, *, train: bool, cancel: bool) -> None:
        """Which buttons can be pressed, as the panel's state says."""
        # query, not query_one: when the app is closing the buttons may already be gone
        for button in self.query("#train-start").results(Button):
            button.disabled = not train
        for button in self.query("#train-cancel").results(Button):
            button.disabled = not cancel

    @on(Button.Pressed, "#train-start")
    @on(Input.Submitted)
    def _start_pressed(self) -> None:
        """The Train button, or Enter in any number box."""
        self.submit()

    @on(Button.Pressed, "#train-cancel")
    def _cancel_pressed(self) -> None:
        self.post_message(self.CancelRequested(self))
