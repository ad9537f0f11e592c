"""The training lab: runs the job the form asks for and draws its state.

TensorFlow runs in a child process; this widget reads its events, folds each into one
TrainingLab state (tui_course.views.training), a StateView's state, and draws it with the
words of tui_course.render.training (the CLI's words too). Whether a run is going and
whether training can run here are that state's alone: the form's buttons are drawn from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Checkbox, Input, ProgressBar, Select, Static

from tui_course.progress.records import TrainingRecord
from tui_course.progress.store import ProgressStore, StoreError
from tui_course.render.training import (
    VAL_NOTE,
    TrainingCurves,
    estimate_text,
    findings_lines,
    log_tail_lines,
    sample_labels,
    sample_title,
    sample_weights,
    status_text,
)
from tui_course.training.options import TrainOptions
from tui_course.training.record import failed_training_record, training_record
from tui_course.training.runner import TrainingRun
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.state_view import StateView
from tui_course.ui.widgets.training_form import TrainingForm
from tui_course.ui.widgets.training_runs import TrainingRunsTable
from tui_course.views.training import Phase, TrainingLab

RunFactory = Callable[[TrainOptions], TrainingRun]

GUIDE = (
    "Is the first of N digits equal to the last? Choose a model and press Train "
    "(ctrl+t); ctrl+x cancels. Lessons stay usable while it runs. Every finished run "
    "is kept in the table below, with what an epoch took."
)


class TrainingPanel(StateView[TrainingLab], VerticalScroll, can_focus=True):
    class Finished(Message):
        """A run ended with a result (and has been kept): the app says so wherever the
        student is."""

        def __init__(self, panel: TrainingPanel, record: TrainingRecord) -> None:
            super().__init__()
            self.panel = panel
            self.record = record

        @property
        def control(self) -> TrainingPanel:
            return self.panel

    # VerticalScroll's own rules: Textual takes a widget's CSS type from its first base only
    # (StateView here), so VerticalScroll's DEFAULT_CSS does not reach this panel, and
    # without them it never scrolls (its form and runs cut off at 40x12 and 80x24).
    DEFAULT_CSS = """
    TrainingPanel {
        layout: vertical;
        overflow-x: hidden;
        overflow-y: auto;
        padding: 0 1 0 0;
        height: 1fr;
    }
    TrainingPanel .lab-guide, TrainingPanel .train-label {
        color: $text-muted;
    }
    TrainingPanel .lab-guide {
        margin-bottom: 1;
    }
    TrainingPanel #train-progress {
        height: auto;
    }
    TrainingPanel #train-status, TrainingPanel #train-plot,
    TrainingPanel #train-attention-title {
        margin: 1 0 0 0;
    }
    TrainingPanel #train-log {
        color: $warning;
        margin-top: 1;
    }
    """
    HELP_TITLE = "Training lab"  # its section in the help (screens/help.py)
    HELP_RANK = 90
    BINDINGS = [
        Binding("ctrl+t", "start", "Train", tooltip="Start training with the options above"),
        # priority: a number box would otherwise take ctrl+x as "cut" and the run go on;
        # with nothing running the key falls through to the box (SkipAction).
        Binding(
            "ctrl+x", "cancel", "Cancel", tooltip="Stop the running training now", priority=True
        ),
    ]

    def __init__(
        self,
        runs: RunFactory,
        extra_missing: str | None = None,
        store: ProgressStore | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        lab = TrainingLab(
            blocked=extra_missing or "", history=kept_runs(store), draft=TrainOptions()
        )
        super().__init__(lab, name=name, id=id, classes=classes)
        self.runs = runs
        self.store = store
        # The child being followed, kept to stop it: whether one runs is the state's to say.
        self._child: TrainingRun | None = None
        self.form = TrainingForm(id="train-options")
        self.status = Static(classes="train-status", markup=False, id="train-status")
        self.estimate = Static(classes="train-label", markup=False, id="train-estimate")
        self.progress_box = Vertical(id="train-progress")
        self.epoch_bar = ProgressBar(total=1, id="train-epoch-bar", show_eta=False)
        self.batch_bar = ProgressBar(total=1, id="train-batch-bar", show_eta=False)
        self.plot = Static(classes="train-plot", markup=False, id="train-plot")
        self.table = TrainingRunsTable(id="train-results")
        self.attention_title = Static(markup=False, id="train-attention-title")
        self.heatmap = HeatmapView(np.zeros((1, 1)), ["-"], id="train-attention", max_rows=8)
        self.findings = Static(classes="train-findings", markup=False, id="train-findings")
        self.log_lines = Static(classes="train-log", markup=False, id="train-log")

    def compose(self) -> ComposeResult:
        yield Static(GUIDE, classes="lab-guide", markup=False)
        yield self.form
        yield self.estimate
        yield self.status
        # Hidden until a run starts, and never without a total: a bar with no total
        # animates (even hidden, its timer ticks), and idle should be idle.
        with self.progress_box:
            yield Static("epochs", classes="train-label", markup=False)
            yield self.epoch_bar
            yield Static("batches in this epoch", classes="train-label", markup=False)
            yield self.batch_bar
        yield self.plot
        yield Static(VAL_NOTE, classes="train-label", markup=False, id="train-val-note")
        yield self.table
        yield self.attention_title
        yield self.heatmap
        yield self.findings
        yield self.log_lines

    def on_mount(self) -> None:
        self.heatmap.display = False
        self.progress_box.display = False

    # the one place the screen is drawn

    def draw(self, old: TrainingLab | None, new: TrainingLab) -> None:
        self.status.update(Text(status_text(new)))
        self.form.show_buttons(train=new.may_start, cancel=new.running)
        if old is None or new.history is not old.history:
            self.table.records = new.history
        self.estimate.update(Text(estimate_text(new)))
        run, before = new.run, None if old is None else old.run
        if run is None:
            return
        if before is None or run.number != before.number:
            self._new_run(run.options)
        if run.phase is Phase.WAITING and (before is None or before.phase is not Phase.WAITING):
            self.status.scroll_visible(animate=False)  # below the form at 24 rows
        total = run.started.epochs if run.started else run.options.epochs
        self.epoch_bar.update(total=total, progress=len(run.epochs))
        if run.progress is not None:  # an epoch that has ended shows all its batches done
            ended = len(run.epochs) >= run.progress.epoch
            done = run.progress.batches if ended else run.progress.batch
            self.batch_bar.update(total=run.progress.batches, progress=done)
        elif run.started is not None:
            self.batch_bar.update(total=run.started.batches, progress=0)
        if before is None or run.epochs is not before.epochs:
            self.plot.update(TrainingCurves(run.epochs, total) if run.epochs else "")
        if run.sample is not None and (before is None or run.sample is not before.sample):
            self.attention_title.update(Text(sample_title(run.sample)))
            self.heatmap.display = True
            self.heatmap.keep_columns = (0, len(run.sample.digits) - 1)  # the two compared
            labels = sample_labels(run.sample)
            self.heatmap.show(sample_weights(run.sample), labels, len(labels) - 1)
        if run.summary is not None and (before is None or run.summary is not before.summary):
            self.findings.update(Text("\n".join(findings_lines(run.summary))))
        if run.error is not None and (before is None or run.error is not before.error):
            self.log_lines.update(Text("\n".join(log_tail_lines(run.error))))

    def _new_run(self, options: TrainOptions) -> None:
        """A fresh run: nothing of the last one stays on screen."""
        self.progress_box.display = True
        self.batch_bar.update(total=1, progress=0)
        self.plot.update("")
        self.log_lines.update("")
        self.findings.update("")
        self.attention_title.update("")
        self.heatmap.display = False
        self.status.scroll_visible(animate=False)  # the run's first words, below the form

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _form_changed(self) -> None:
        try:
            draft: TrainOptions | None = self.form.read_options()
        except ValueError:
            draft = None
        self.state = self.state.drafted(draft)

    # running

    @property
    def running(self) -> bool:
        """A run's child is still followed (quitting asks first)."""
        return self.state.child_held

    def action_start(self) -> None:
        self.form.submit()

    @on(TrainingForm.Refused)
    def _refused(self, message: TrainingForm.Refused) -> None:
        self.state = self.state.refuse(message.reason)

    @on(TrainingForm.Requested)
    def _requested(self, message: TrainingForm.Requested) -> None:
        self.start(message.options)

    def start(self, options: TrainOptions) -> None:
        """A new run, once the panel has let go of the last one's child (its record kept:
        starting a new worker would cancel the last one's before it kept it)."""
        if not self.state.may_start:
            return
        try:
            run = self.runs(options)
        except OSError as error:  # the logs folder cannot be made (read-only, quota, a link)
            self.state = self.state.abandon(
                f"Cannot start: the training log cannot be written ({error})."
            )
            return
        self._child = run
        self.state = started = self.state.start(options)
        if started.run is not None:
            self._follow(run, options, started.run.number)

    @work(exclusive=True, group="training")
    async def _follow(self, run: TrainingRun, options: TrainOptions, number: int) -> None:
        try:
            async for event in run.events():
                self.state = self.state.apply(event)
            state = self.state.run
            if state is not None and state.done is not None:
                self._keep(training_record("lab", options, state.epochs, state.summary, state.done))
            elif state is not None and state.error is not None and self.store is not None:
                failed = failed_training_record(
                    "lab", options, state.epochs, state.error, str(run.log)
                )
                self.store.record_failed_training_run(failed)
        finally:
            if self._child is run:
                self._child = None
            self.state = self.state.released(number)

    def _keep(self, record: TrainingRecord) -> None:
        if self.store is not None:
            record = replace(record, id=self.store.record_training_run(record))
        self.state = self.state.kept(record)
        self.post_message(self.Finished(self, record))

    async def action_cancel(self) -> None:
        if not self.state.running:
            raise SkipAction()
        await self.cancel()

    @on(TrainingForm.CancelRequested)
    async def _cancel_pressed(self) -> None:
        await self.cancel()

    async def cancel(self) -> None:
        run = self._child
        if not self.state.running or run is None:
            return
        self.state = self.state.cancel()  # first: events the stopping child still sends are ignored
        await run.cancel()

    async def stop(self) -> None:
        """Stop any running child (used when the app quits)."""
        if self._child is not None:
            await self._child.cancel()

    async def on_unmount(self) -> None:
        await self.stop()  # however the app ends, no training is left behind


def kept_runs(store: ProgressStore | None) -> tuple[TrainingRecord, ...]:
    """The runs to compare from earlier sessions."""
    if store is None:
        return ()
    try:
        return tuple(store.training_runs())
    except StoreError:
        return ()  # a locked or damaged store: the table starts empty, training still works
