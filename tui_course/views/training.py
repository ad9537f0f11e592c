"""The training lab's whole state: one run as its events arrive, and the runs to compare.

Frozen values, each change a method returning the next state, so the rules (what a
slot event, a cancel or a crash does to the run) are tested without Textual and the
widget only draws what it is given (tui_course.render.training has the words). Whether
a run is going and whether training can run here at all are held here only: the panel,
its form's buttons and the app's quit question read them from this state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from tui_course.progress.records import TrainingRecord
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    Event,
    SlotTaken,
    Started,
    Waiting,
)


class Phase(Enum):
    LAUNCHING = "launching"  # the child (or the line) is being set up
    WAITING = "waiting"  # in line for a training slot
    STARTING = "starting"  # a slot is won, or none is needed: TensorFlow is loading
    TRAINING = "training"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED = frozenset({Phase.DONE, Phase.FAILED, Phase.CANCELLED})


@dataclass(frozen=True)
class TrainingRunState:
    """One run, from the moment Train is pressed to its last event."""

    options: TrainOptions
    number: int = 1  # of the session's runs: a new number is a new run to draw from scratch
    phase: Phase = Phase.LAUNCHING
    waiting: Waiting | None = None
    slot: SlotTaken | None = None
    started: Started | None = None
    progress: BatchProgress | None = None
    epochs: tuple[EpochEnd, ...] = ()
    sample: AttentionSample | None = None  # the first one: the lab draws one sequence
    summary: AttentionSummary | None = None
    done: Done | None = None
    error: Error | None = None
    left_the_line: bool = False  # cancelled while waiting for a slot
    # The panel has let go of the child: its last event read, its result kept, the process
    # reaped. A finished phase comes first (the child is still exiting, its record unsaved).
    let_go: bool = False

    @property
    def running(self) -> bool:
        return self.phase not in FINISHED

    def apply(self, event: Event) -> TrainingRunState:
        """The next state after one event from the run. Events after the run ended
        (a late line from a child being stopped) change nothing."""
        if not self.running:
            return self
        match event:
            case Waiting():
                return replace(self, phase=Phase.WAITING, waiting=event)
            case SlotTaken():
                return replace(self, phase=Phase.STARTING, slot=event)
            case Started():
                return replace(self, phase=Phase.TRAINING, started=event)
            case BatchProgress():
                return replace(self, phase=Phase.TRAINING, progress=event)
            case EpochEnd():
                return replace(self, epochs=(*self.epochs, event))
            case AttentionSample():
                return self if self.sample is not None else replace(self, sample=event)
            case AttentionSummary():
                return replace(self, summary=event)
            case Done():
                return replace(self, phase=Phase.DONE, done=event)
            case Error():
                return replace(self, phase=Phase.FAILED, error=event)
        return self

    def cancelled(self) -> TrainingRunState:
        if not self.running:
            return self
        in_line = self.started is None and self.phase in (Phase.WAITING, Phase.LAUNCHING)
        return replace(self, phase=Phase.CANCELLED, left_the_line=in_line)


@dataclass(frozen=True)
class TrainingLab:
    """The lab: the current (or last) run, a one-line notice, and every kept run."""

    run: TrainingRunState | None = None
    notice: str = ""  # "Cannot start: ..." or the missing-extra line; cleared by a start
    history: tuple[TrainingRecord, ...] = ()
    blocked: str = ""  # why training cannot run here at all (no train extra)
    draft: TrainOptions | None = None  # what the form holds now (None: a field is wrong)

    @property
    def running(self) -> bool:
        """The run is going: Cancel means something, a finished status is not shown yet."""
        return self.run is not None and self.run.running

    @property
    def child_held(self) -> bool:
        """The panel still follows the run's child (it may be exiting, its record unsaved):
        no new run starts, and quitting asks first, until it lets go."""
        return self.run is not None and not self.run.let_go

    @property
    def may_start(self) -> bool:
        return not self.blocked and not self.child_held

    def start(self, options: TrainOptions) -> TrainingLab:
        if not self.may_start:
            return self
        number = 1 if self.run is None else self.run.number + 1
        return replace(self, run=TrainingRunState(options, number), notice="")

    def drafted(self, options: TrainOptions | None) -> TrainingLab:
        """The form changed: the estimate under it follows."""
        return replace(self, draft=options)

    def refuse(self, reason: str) -> TrainingLab:
        """Train was pressed but no run could begin (a bad field): said only when Train
        could have started one."""
        return replace(self, notice=reason) if self.may_start else self

    def abandon(self, reason: str) -> TrainingLab:
        """The run could not be launched after all: back to no run, saying why."""
        return replace(self, run=None, notice=reason)

    def apply(self, event: Event) -> TrainingLab:
        if self.run is None:
            return self
        return replace(self, run=self.run.apply(event))

    def cancel(self) -> TrainingLab:
        if self.run is None:
            return self
        return replace(self, run=self.run.cancelled())

    def released(self, number: int) -> TrainingLab:
        """The panel has let go of run `number`'s child (see TrainingRunState.let_go)."""
        run = self.run
        if run is None or run.number != number or run.let_go:
            return self
        return replace(self, run=replace(run, let_go=True))

    def kept(self, record: TrainingRecord) -> TrainingLab:
        """A finished run joins the comparison (the store's copy, or this session's only)."""
        return replace(self, history=(*self.history, record))
