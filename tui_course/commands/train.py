"""`attn-tui train`: the digit task in a child process, with progress on the terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui_course.commands.common import PROG, add_common, data_dir, fail
from tui_course.training.options import add_train_arguments

if TYPE_CHECKING:
    from tui_course.training.protocol import AttentionSummary, Event
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
        printer = _print_plain_training
    try:
        return asyncio.run(_follow(run, printer))
    except KeyboardInterrupt:
        print(f"{PROG}: train: cancelled", file=sys.stderr)
        return 130


async def _follow(run: TrainingRun, printer: Callable[[Event], None]) -> int:
    from tui_course.training.protocol import Done, Error

    code = 1
    async for event in run.events():
        printer(event)
        if isinstance(event, Done):
            code = 0
        elif isinstance(event, Error):
            code = 1
    return code


def _print_json(event: Event) -> None:
    from tui_course.training.protocol import encode

    print(encode(event), flush=True)


def _print_plain_training(event: Event) -> None:
    """One line per epoch: fit for logs and pipes (no carriage returns)."""
    from tui_course.safe_text import path_text, plain_text
    from tui_course.training.protocol import (
        AttentionSummary,
        Done,
        EpochEnd,
        Error,
        Started,
        Waiting,
        waiting_text,
    )

    if isinstance(event, Waiting):
        print(f"{waiting_text(event)}, ctrl+c to leave", flush=True)
    elif isinstance(event, AttentionSummary):
        print(_findings_text(event), flush=True)
    elif isinstance(event, Started):
        print(
            f"training {event.model}{'' if event.position else ' without positions'}: "
            f"{event.params:,} parameters, {event.epochs} epoch{'' if event.epochs == 1 else 's'}"
            f" of {event.batches} batches "
            f"(log: {path_text(event.log)})",  # the data dir may hold escape codes
            flush=True,
        )
    elif isinstance(event, EpochEnd):
        print(
            f"epoch {event.epoch:>3}/{event.epochs}  loss {event.loss:.4f}  "
            f"acc {event.accuracy:.4f}  val_loss {event.val_loss:.4f}  "
            f"val_acc {event.val_accuracy:.4f}  {event.seconds:6.1f} s",
            flush=True,
        )
    elif isinstance(event, Done):
        print(
            f"test accuracy {event.test_accuracy:.3f} with {event.params:,} parameters "
            f"in {event.seconds:.1f} s",
            flush=True,
        )
    elif isinstance(event, Error):
        print(f"{PROG}: train: {plain_text(event.message)}", file=sys.stderr)
        for line in event.log_tail:
            print(f"  {plain_text(line)}", file=sys.stderr)


def _findings_text(event: AttentionSummary) -> str:
    """What the trained attention does, computed from the run's averaged weights."""
    from tui_course.training.findings import describe_findings, find_in_attention

    try:
        return "\n".join(describe_findings(find_in_attention(event.weights, event.sequences)))
    except ValueError as error:
        return f"no attention findings: {error}"


class _RichTrainPrinter:
    """Progress bars on a terminal; the epoch lines are printed above them."""

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

    def __call__(self, event: Event) -> None:
        from tui_course.training.protocol import (
            AttentionSummary,
            BatchProgress,
            Done,
            EpochEnd,
            Error,
            Started,
            Waiting,
        )

        if isinstance(event, Waiting):
            _print_plain_training(event)  # a new line each time the place in line changes
        elif isinstance(event, Started):
            self.progress.start()
            _print_plain_training(event)
            self.epochs = self.progress.add_task("epochs", total=event.epochs, detail="")
            self.batches = self.progress.add_task("batches", total=event.batches, detail="")
        elif isinstance(event, BatchProgress):
            self.progress.update(
                self.batches,
                completed=event.batch,
                detail=f"loss {event.loss:.4f} acc {event.accuracy:.3f} "
                f"{event.samples_per_second:,.0f} samples/s",
            )
        elif isinstance(event, EpochEnd):
            self.progress.update(
                self.epochs, completed=event.epoch, detail=f"val_acc {event.val_accuracy:.3f}"
            )
            self.progress.update(self.batches, completed=0)
            self.progress.console.print(
                f"epoch {event.epoch}/{event.epochs}: val_acc {event.val_accuracy:.4f}"
            )
        elif isinstance(event, Done | Error):
            self.progress.stop()
            _print_plain_training(event)
        elif isinstance(event, AttentionSummary):
            self.progress.console.print(_findings_text(event), markup=False, highlight=False)
