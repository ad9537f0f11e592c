"""The training lab: a form, a live progress panel, a comparison of runs, and what the
trained model attends to. TensorFlow runs in a child process; this widget only reads events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, ProgressBar, Select, Static

from tui_course import specs
from tui_course.render.plot import line_plot
from tui_course.safe_text import clean, one_line
from tui_course.training.findings import describe_findings, find_in_attention
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    Event,
    Started,
    Waiting,
    waiting_text,
)
from tui_course.training.runner import TrainingRun
from tui_course.ui.widgets.heatmap_view import HeatmapView

RunFactory = Callable[[TrainOptions], TrainingRun]

# The form's number boxes: (spec, label); ranges and defaults live in tui_course.specs.
_NUMBER_FIELDS = tuple(
    zip(specs.TRAINING_FORM, ("digits", "epochs", "batch", "seed", "threads"), strict=True)
)


FIELD_LABEL_WIDTH = 14  # a number box's width at 80 columns, less its frame


def field_label(spec: specs.IntSpec, label: str) -> str:
    """The box's name with its range when that fits above the box ('epochs 1-1,000'):
    a student learnt the limits only from the error after pressing Train."""
    with_range = f"{label} {spec.low:,}-{spec.high:,}"
    return with_range if len(with_range) <= FIELD_LABEL_WIDTH else label


@dataclass(frozen=True)
class FinishedRun:
    options: TrainOptions
    done: Done


def format_eta(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    return f"{seconds // 60}:{seconds % 60:02d}"


class TrainingPanel(VerticalScroll, can_focus=True):
    # Under 60 columns the form goes two fields to a row: see Screen.-tiny in app.tcss.
    DEFAULT_CSS = """
    TrainingPanel {
        padding: 0 1 0 0;
        height: 1fr;
    }
    TrainingPanel .lab-guide, TrainingPanel .train-label {
        color: $text-muted;
    }
    TrainingPanel .lab-guide {
        margin-bottom: 1;
    }
    TrainingPanel .train-form, TrainingPanel #train-progress {
        height: auto;
    }
    TrainingPanel .train-field {
        width: 1fr;
        height: auto;
    }
    TrainingPanel .train-field Input {
        width: 100%;
    }
    TrainingPanel #train-model {
        width: 24;
    }
    TrainingPanel .train-buttons {
        height: auto;
        margin: 1 0;
    }
    TrainingPanel .train-buttons Button {
        margin-right: 2;
    }
    TrainingPanel #train-status, TrainingPanel #train-plot, TrainingPanel #train-results,
    TrainingPanel #train-attention-title {
        margin: 1 0 0 0;
    }
    TrainingPanel #train-log {
        color: $warning;
        margin-top: 1;
    }
    """
    BINDINGS = [
        Binding("ctrl+t", "start", "Train", tooltip="Start training with the options above"),
        # priority: a number box would otherwise take ctrl+x as "cut" and the run go on;
        # with nothing running the key falls through to the box (SkipAction).
        Binding(
            "ctrl+x", "cancel", "Cancel", tooltip="Stop the running training now", priority=True
        ),
    ]

    class Finished(Message):
        def __init__(self, run: FinishedRun) -> None:
            super().__init__()
            self.run = run

    def __init__(self, runs: RunFactory, extra_missing: str | None = None, **kwargs: object):
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.runs = runs
        self.extra_missing = extra_missing
        self.current: TrainingRun | None = None
        self.started: Started | None = None
        self.epochs: list[EpochEnd] = []
        self.finished: list[FinishedRun] = []
        self.samples: list[AttentionSample] = []

    def compose(self) -> ComposeResult:
        yield Static(
            "Is the first of N digits equal to the last? Choose a model and press Train "
            "(ctrl+t); ctrl+x cancels. Lessons stay usable while it runs.",
            classes="lab-guide",
            markup=False,
        )
        with Horizontal(classes="train-form"):
            yield Select(
                [(name, name) for name in specs.MODELS.choices],
                value="transformer",
                allow_blank=False,
                id="train-model",
            )
            yield Checkbox("positions", value=True, id="train-position")
        with Horizontal(classes="train-form"):
            defaults = TrainOptions()
            for spec, label in _NUMBER_FIELDS:
                with Vertical(classes="train-field"):
                    yield Static(field_label(spec, label), classes="train-label", markup=False)
                    yield Input(
                        str(getattr(defaults, spec.name)),
                        type="integer",
                        id=f"train-{spec.name}",
                        tooltip=spec.flag_help(),
                    )
        with Horizontal(classes="train-buttons"):
            yield Button("Train", id="train-start", variant="primary")
            yield Button("Cancel", id="train-cancel", disabled=True)
        yield Static(classes="train-status", markup=False, id="train-status")
        # Hidden until a run starts, and never without a total: a bar with no total
        # animates (even hidden, its timer ticks), and idle should be idle.
        with Vertical(id="train-progress"):
            yield Static("epochs", classes="train-label", markup=False)
            yield ProgressBar(total=1, id="train-epoch-bar", show_eta=False)
            yield Static("batches in this epoch", classes="train-label", markup=False)
            yield ProgressBar(total=1, id="train-batch-bar", show_eta=False)
        yield Static(classes="train-plot", markup=False, id="train-plot")
        yield Static(
            "val acc is the accuracy on the test sequences, which the model never trains on "
            "(Keras calls them validation data); the final test accuracy is the same measurement.",
            classes="train-label",
            markup=False,
            id="train-val-note",
        )
        yield Static(classes="train-results", markup=False, id="train-results")
        yield Static(classes="train-attention-title", markup=False, id="train-attention-title")
        yield HeatmapView(np.zeros((1, 1)), ["-"], id="train-attention", max_rows=8)
        yield Static(classes="train-findings", markup=False, id="train-findings")
        yield Static(classes="train-log", markup=False, id="train-log")

    def on_mount(self) -> None:
        self.query_one("#train-attention").display = False
        self.query_one("#train-progress").display = False
        if self.extra_missing:
            self.query_one("#train-start", Button).disabled = True
            self._status(self.extra_missing)
        else:
            self._status("Ready. The defaults are the lesson's model: 30 epochs, batch 64.")

    # the form

    def options(self) -> TrainOptions:
        """Options from the form; raises ValueError naming the field that is wrong."""
        values: dict[str, int] = {}
        for spec, label in _NUMBER_FIELDS:
            text = self.query_one(f"#train-{spec.name}", Input).value.strip()
            if not text.lstrip("-").isdigit() or spec.problem(int(text)) is not None:
                raise ValueError(f"{label} must be a whole number {spec.allowed()}")
            values[spec.name] = int(text)
        model = str(self.query_one("#train-model", Select).value)
        position = self.query_one("#train-position", Checkbox).value
        return TrainOptions(model=model, position=position, **values)

    # running

    @property
    def running(self) -> bool:
        return self.current is not None

    def action_start(self) -> None:
        if self.running or self.extra_missing:
            return
        try:
            options = self.options()
        except ValueError as error:
            self._status(f"Cannot start: {error}.")
            return
        self.epochs, self.samples, self.started = [], [], None
        self.query_one("#train-log", Static).update("")
        self.query_one("#train-attention").display = False
        self.query_one("#train-attention-title", Static).update("")
        self.query_one("#train-findings", Static).update("")
        try:
            self.current = self.runs(options)
        except OSError as error:  # the logs folder cannot be made (read-only, quota, a link)
            self._status(f"Cannot start: the training log cannot be written ({error}).")
            return
        for bar in self.query(ProgressBar).results(ProgressBar):
            bar.update(total=options.epochs if bar.id == "train-epoch-bar" else 1, progress=0)
        self.query_one("#train-progress").display = True
        self._set_running(True)
        self._status(f"Starting {options.describe()} (TensorFlow takes a few seconds to load)...")
        self._follow(self.current, options)

    @work(exclusive=True, group="training")
    async def _follow(self, run: TrainingRun, options: TrainOptions) -> None:
        try:
            async for event in run.events():
                self.apply(event, options)
        finally:
            if self.current is run:
                self.current = None
                self._set_running(False)

    async def action_cancel(self) -> None:
        if self.current is None:
            raise SkipAction()
        await self.cancel()

    async def cancel(self) -> None:
        run = self.current
        if run is None:
            return
        waiting = run.process is None  # still in line for a training slot
        await run.cancel()
        if waiting:
            self._status("Cancelled. You left the line for a training slot.")
        else:
            self._status("Cancelled. The training process has been stopped.")

    async def stop(self) -> None:
        """Stop any running child (used when the app quits)."""
        if self.current is not None:
            await self.current.cancel()

    async def on_unmount(self) -> None:
        await self.stop()  # however the app ends, no training is left behind

    @on(Button.Pressed, "#train-start")
    @on(Input.Submitted)
    def _start_pressed(self) -> None:
        """The Train button, or Enter in any number box."""
        self.action_start()

    @on(Button.Pressed, "#train-cancel")
    async def _cancel_pressed(self) -> None:
        await self.cancel()

    def _set_running(self, running: bool) -> None:
        # query, not query_one: when the app is closing the buttons may already be gone
        for button in self.query("#train-start").results(Button):
            button.disabled = running or bool(self.extra_missing)
        for button in self.query("#train-cancel").results(Button):
            button.disabled = not running

    def _status(self, text: str) -> None:
        # Errors quote the data folder's path and the child's messages: text, never escapes.
        self.query_one("#train-status", Static).update(Text(clean(text)))

    # events -> screen

    def apply(self, event: Event, options: TrainOptions) -> None:
        if isinstance(event, Waiting):
            self._status(f"{waiting_text(event).capitalize()}. ctrl+x cancels.")
            self.query_one("#train-status").scroll_visible(
                animate=False
            )  # below the form at 24 rows
        elif isinstance(event, Started):
            self.started = event
            self.query_one("#train-epoch-bar", ProgressBar).update(total=event.epochs, progress=0)
            self.query_one("#train-batch-bar", ProgressBar).update(total=event.batches, progress=0)
            self._status(f"Training {options.describe()}: {event.params:,} parameters.")
        elif isinstance(event, BatchProgress):
            self.query_one("#train-batch-bar", ProgressBar).update(
                total=event.batches, progress=event.batch
            )
            last = self.epochs[-1] if self.epochs else None
            validation = (
                f" | val_loss {last.val_loss:.3f} val_acc {last.val_accuracy:.3f}" if last else ""
            )
            self._status(
                f"epoch {event.epoch}/{event.epochs} | batch {event.batch}/{event.batches}"
                f" | ETA {format_eta(event.eta_seconds)}"
                f" | {event.samples_per_second:,.0f} samples/s\n"
                f"loss {event.loss:.3f} acc {event.accuracy:.3f}{validation}"
            )
        elif isinstance(event, EpochEnd):
            self.epochs.append(event)
            self.query_one("#train-epoch-bar", ProgressBar).update(
                total=event.epochs, progress=event.epoch
            )
            self._draw_plot(event.epochs)
        elif isinstance(event, AttentionSample):
            self.samples.append(event)
            if len(self.samples) == 1:
                self._draw_attention(event)
        elif isinstance(event, AttentionSummary):
            self._draw_findings(event)
        elif isinstance(event, Done):
            finished = FinishedRun(options, event)
            self.finished.append(finished)
            self._status(
                f"Done: test accuracy {event.test_accuracy:.3f} with {event.params:,} parameters"
                f" in {event.seconds:.1f} s."
            )
            self._draw_results()
            self.post_message(self.Finished(finished))
        elif isinstance(event, Error):
            self._status(f"Training failed: {event.message}")
            if event.log_tail:
                tail = "\n".join(f"  {one_line(line)}" for line in event.log_tail)
                self.query_one("#train-log", Static).update(Text(f"Last lines of the log:\n{tail}"))

    def _draw_plot(self, total: int) -> None:
        series = {
            "train acc": [e.accuracy for e in self.epochs],
            "val acc": [e.val_accuracy for e in self.epochs],
        }
        width = max(20, (self.content_region.width or 60) - 12)
        plot = line_plot(series, width=width, height=7, low=0.4, high=1.0, total=total)
        self.query_one("#train-plot", Static).update(Text(plot))

    def _draw_results(self) -> None:
        lines = [
            "This session's runs:",
            f"{'model':<20} {'test acc':>8} {'params':>7} {'time':>7}",
        ]
        for run in self.finished:
            done = run.done
            lines.append(
                f"{run.options.describe():<20} {done.test_accuracy:>8.3f} {done.params:>7,}"
                f" {done.seconds:>6.1f}s"
            )
        self.query_one("#train-results", Static).update(Text("\n".join(lines)))

    def _draw_attention(self, sample: AttentionSample) -> None:
        weights = np.asarray(sample.weights, dtype=np.float64).mean(axis=0)
        labels = [f"{i + 1}:{digit}" for i, digit in enumerate(sample.digits)]
        last = len(labels) - 1
        verdict = "the same" if sample.label else "different"
        self.query_one("#train-attention-title", Static).update(
            Text(
                f"Trained attention for one test sequence whose first and last digits are"
                f" {verdict} (model says {sample.prediction:.2f}), mean of the heads; rows are"
                f" query positions, columns key positions (position:digit)."
            )
        )
        heatmap = self.query_one("#train-attention", HeatmapView)
        heatmap.display = True
        heatmap.keep_columns = (0, last)  # the two digits the task compares stay on screen
        heatmap.show(weights, labels, last)

    def _draw_findings(self, summary: AttentionSummary) -> None:
        try:
            findings = find_in_attention(summary.weights, summary.sequences)
        except ValueError as error:
            self.query_one("#train-findings", Static).update(Text(f"No attention summary: {error}"))
            return
        self.query_one("#train-findings", Static).update(
            Text("\n".join(describe_findings(findings)))
        )
