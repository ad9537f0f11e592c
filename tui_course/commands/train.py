"""`attn-tui train`: the digit task in a child process, with progress on the terminal."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui_course.commands.common import PROG, add_common, data_dir, fail
from tui_course.training.options import add_train_arguments

if TYPE_CHECKING:
    from pathlib import Path

    from tui_course.training.options import TrainOptions
    from tui_course.training.protocol import AttentionSummary, Done, EpochEnd, Error, Event
    from tui_course.training.runner import TrainingRun


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "train",
        help="train the digit task (needs the train extra)",
        description="Train lesson 10's digit task in a child process. Sizes are capped so one "
        "run stays within 2 GB of memory.",
        epilog="example:\n  attn-tui train --model lstm --length 60 --epochs 10",
    )
    add_train_arguments(parser)
    parser.add_argument("--json", action="store_true", help="JSON lines on stdout")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    data = data_dir(args)
    import asyncio

    from tui_course.training.options import options_from_args
    from tui_course.training.runner import TRAIN_EXTRA_MISSING, TrainingRun, train_extra_installed

    if not train_extra_installed():
        return fail(f"train: {TRAIN_EXTRA_MISSING}", 2)
    options = options_from_args(args)
    try:
        run = TrainingRun.for_options(options, data)
    except OSError as error:
        return fail(f"train: cannot write logs under {data}: {error}")
    if args.json:
        printer = _print_json
    elif sys.stdout.isatty():
        printer = _RichTrainPrinter()
    else:
        printer = print_plain_training
    keep = RunKeeper(options, str(run.log))
    # What keep.save needs (the progress store, NumPy) takes 0.5 s to import: done while the
    # child trains, not after it, when the student is waiting for the prompt.
    threading.Thread(target=_import_the_store, name="import-store", daemon=True).start()
    try:
        code = asyncio.run(_follow(run, printer, keep))
    except KeyboardInterrupt:
        print(f"{PROG}: train: cancelled", file=sys.stderr)
        return 130
    keep.save(data)
    return code


def _import_the_store() -> None:
    import tui_course.progress.store
    import tui_course.training.record  # noqa: F401


async def _follow(run: TrainingRun, printer: Callable[[Event], None], keep: RunKeeper) -> int:
    from tui_course.training.protocol import Done, Error

    code = 1
    async for event in run.events():
        keep.see(event)
        printer(event)
        if isinstance(event, Done):
            code = 0
        elif isinstance(event, Error):
            code = 1
    return code


class RunKeeper:
    """Collects what the progress store keeps of a finished run, as the lab does."""

    def __init__(self, options: TrainOptions, log: str = "") -> None:
        self.options = options
        self.log = log
        self.epochs: list[EpochEnd] = []
        self.summary: AttentionSummary | None = None
        self.done: Done | None = None
        self.error: Error | None = None

    def see(self, event: Event) -> None:
        from tui_course.training.protocol import AttentionSummary, Done, EpochEnd, Error

        if isinstance(event, Error):
            self.error = event
        elif isinstance(event, EpochEnd):
            self.epochs.append(event)
        elif isinstance(event, AttentionSummary):
            self.summary = event
        elif isinstance(event, Done):
            self.done = event

    def save(self, data: Path) -> None:
        """Into the progress store, so the lab's table and `attn-tui progress` list it. A
        store that cannot be written costs a line on stderr, never the result."""
        from tui_course.progress.store import ProgressStore, StoreError
        from tui_course.training.record import failed_training_record, training_record

        if self.done is None and self.error is None:
            return  # cancelled: nothing to keep
        try:
            with ProgressStore(data) as store:
                problems: list[str] = []
                store.on_problem = problems.append
                if self.done is not None:
                    record = training_record(
                        "cli", self.options, self.epochs, self.summary, self.done
                    )
                    saved = store.record_training_run(record)
                else:
                    assert self.error is not None
                    failed = failed_training_record(
                        "cli", self.options, self.epochs, self.error, self.log
                    )
                    saved = store.record_failed_training_run(failed)
        except (StoreError, OSError) as error:
            problems, saved = [str(error)], 0
        if not saved:
            detail = f": {problems[0]}" if problems else ""
            print(f"{PROG}: train: the run was not kept in {data}{detail}", file=sys.stderr)


def _print_json(event: Event) -> None:
    from tui_course.training.protocol import encode

    print(encode(event), flush=True)


def print_plain_training(event: Event) -> None:
    """One line per epoch: fit for logs and pipes (no carriage returns). Plain mode's
    training lab says each event with it too, so both say the same words."""
    from tui_course.render.training import event_lines
    from tui_course.text.safe import plain_text
    from tui_course.training.protocol import Error

    if isinstance(event, Error):
        print(f"{PROG}: train: {plain_text(event.message)}", file=sys.stderr)
        for line in event.log_tail:
            print(f"  {plain_text(line)}", file=sys.stderr)
        return
    lines = event_lines(event)
    if lines:
        print("\n".join(lines), flush=True)


class _RichTrainPrinter:
    """Progress bars on a terminal; the plain lines (the same words) are printed above them."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
        )
        self.epochs: Any = None
        self.batches: Any = None
        self.batch_total = 0

    def __call__(self, event: Event) -> None:
        from tui_course.render.training import event_lines, metrics_phrase
        from tui_course.training.protocol import BatchProgress, Done, EpochEnd, Error, Started

        if isinstance(event, Started):
            self.progress.start()
            self.epochs = self.progress.add_task("epochs", total=event.epochs, detail="")
            self.batches = self.progress.add_task("batches", total=event.batches, detail="")
            self.batch_total = event.batches
        elif isinstance(event, BatchProgress):
            self.progress.update(
                self.batches, completed=event.batch, detail=metrics_phrase(event, None)
            )
            return
        elif isinstance(event, EpochEnd):
            self.progress.update(
                self.epochs, completed=event.epoch, detail=f"val_acc {event.val_accuracy:.3f}"
            )
            # the epoch's batches are all done; the next epoch's first progress moves it on
            self.progress.update(self.batches, completed=self.batch_total)
        elif isinstance(event, Done | Error):
            self.progress.stop()
        if isinstance(event, Error):
            print_plain_training(event)
            return
        for line in event_lines(event):
            self.progress.console.print(line, markup=False, highlight=False)
