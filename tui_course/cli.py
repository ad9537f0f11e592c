"""The front door: `attn-tui [--open ID] [--content DIR] [--data-dir DIR] [SUBCOMMAND]`."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tui_course import __version__
from tui_course.content.blocks import EMBEDDING_SETS
from tui_course.paths import data_dir, default_content_dir
from tui_course.training.options import add_train_arguments, int_between

if TYPE_CHECKING:
    from rich.console import Console

    from tui_course.training.protocol import Event
    from tui_course.training.runner import TrainingRun

PROG = "attn-tui"
DEFAULT_SENTENCE = "The train left the station on time"


class Parser(argparse.ArgumentParser):
    """Usage errors are one line that names the flag, never a wall of usage text."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_common(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--content",
        metavar="DIR",
        default=default,
        help="content folder holding lessons/ and quizzes/ (default: the shipped course)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=default,
        help="where progress is stored (default: $ATTN_TUI_DATA_DIR or the user data dir)",
    )


def build_parser() -> Parser:
    parser = Parser(prog=PROG, description="A terminal course on Transformers and self-attention.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--open", metavar="ID", help="start on this lesson or quiz id")
    _add_common(parser, None)
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=Parser)
    validate = commands.add_parser(
        "validate", help="check a content folder and prove its answer keys"
    )
    validate.add_argument("dir", nargs="?", metavar="DIR", help="content folder (default: shipped)")
    attention = commands.add_parser("attention", help="print an attention heatmap for a sentence")
    attention.add_argument(
        "words", nargs="*", metavar="WORD", help=f"the sentence (default: {DEFAULT_SENTENCE!r})"
    )
    attention.add_argument("--query", metavar="WORD", help="the word whose weights are listed")
    attention.add_argument("--heads", type=int, choices=(1, 2, 4), default=1)
    attention.add_argument("--causal", action="store_true", help="mask out later words")
    attention.add_argument("--no-scale", action="store_true", help="skip the 1/sqrt(d) scaling")
    attention.add_argument("--embeddings", choices=EMBEDDING_SETS, default="toy-train")
    attention.add_argument("--ascii", action="store_true", help="pure ASCII output")
    pe = commands.add_parser("pe", help="print a sinusoidal positional-encoding table")
    pe.add_argument("--positions", type=int_between(1, 256), default=8, metavar="N")
    pe.add_argument("--dim", type=int_between(1, 512), default=4, metavar="D")
    pe.add_argument("--similarity", action="store_true", help="add the position-similarity map")
    pe.add_argument("--ascii", action="store_true", help="pure ASCII output")
    train = commands.add_parser("train", help="train the digit task (needs the train extra)")
    add_train_arguments(train)
    train.add_argument("--json", action="store_true", help="JSON lines on stdout")
    _add_common(train, argparse.SUPPRESS)
    progress = commands.add_parser("progress", help="show saved progress")
    progress.add_argument("--format", choices=("table", "csv", "json"), default="table")
    _add_common(progress, argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        # `attn-tui attention | head`: the reader left; say nothing more.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    content = Path(args.content).expanduser() if args.content else default_content_dir()
    if args.command == "validate":
        return run_validate(Path(args.dir).expanduser() if args.dir else content)
    if args.command == "attention":
        return run_attention(args)
    if args.command == "pe":
        return run_pe(args)
    if args.command == "train":
        return run_train(args, data_dir(args.data_dir))
    if args.command == "progress":
        return run_progress(content, data_dir(args.data_dir), args.format)
    return run_app(content, data_dir(args.data_dir), args.open)


def _fail(message: str, code: int = 1) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return code


def run_validate(root: Path) -> int:
    from tui_course.validate import validate

    report = validate(root)
    for problem in report.problems:
        print(problem)
    if not report.ok:
        print(f"{len(report.problems)} problem(s) found in {root}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


def run_app(content: Path, data: Path, open_id: str | None) -> int:
    from tui_course.progress.store import StoreError
    from tui_course.ui.app import Settings, make_app

    try:
        app = make_app(Settings(content, data, open_id))
    except (StoreError, OSError) as error:
        return _fail(f"cannot open progress store in {data}: {error}")
    if open_id is not None and app.course.find(open_id) is None:
        app.store.close()
        known = ", ".join(item.id for item in app.items) or "none found"
        return _fail(f"error: --open: no lesson, quiz or lab with id '{open_id}' (ids: {known})", 2)
    app.run()
    return 0


def run_progress(content: Path, data: Path, fmt: str) -> int:
    from tui_course.content.course import load_course
    from tui_course.progress.report import progress_report
    from tui_course.progress.store import ProgressStore, StoreError

    course = load_course(content)
    try:
        with ProgressStore(data) as store:
            if store.notice:
                print(f"{PROG}: {store.notice}", file=sys.stderr)
            report = progress_report(course, store)
    except (StoreError, OSError) as error:
        return _fail(f"cannot open progress store in {data}: {error}")
    if fmt == "json":
        print(json.dumps(report, indent=2))
    elif fmt == "csv":
        print(_progress_csv(report), end="")
    else:
        print(_progress_table(report))
    return 0


def _progress_csv(report: dict[str, list[dict[str, object]]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["kind", "id", "title", "done", "best_score", "questions", "mastered", "attempts"]
    )
    for lesson in report["lessons"]:
        writer.writerow(["lesson", lesson["id"], lesson["title"], lesson["done"], "", "", "", ""])
    for quiz in report["quizzes"]:
        writer.writerow(
            [
                "quiz",
                quiz["id"],
                quiz["title"],
                quiz["done"],
                "" if quiz["best_score"] is None else quiz["best_score"],
                quiz["questions"],
                quiz["mastered"],
                quiz["attempts"],
            ]
        )
    return out.getvalue()


def _progress_table(report: dict[str, list[dict[str, object]]]) -> str:
    lines = ["Lessons", f"  {'':3} {'id':<24} {'title':<40} done"]
    for lesson in report["lessons"]:
        done = "yes" if lesson["done"] else "no"
        lines.append(
            f"  {lesson['order']!s:>3} {lesson['id']!s:<24} {str(lesson['title'])[:40]:<40} {done}"
        )
    lines += [
        "",
        "Quizzes",
        f"  {'id':<16} {'title':<36} {'best':>6} {'mastered':>9} {'attempts':>9}",
    ]
    for quiz in report["quizzes"]:
        best = "-" if quiz["best_score"] is None else f"{quiz['best_score']}/{quiz['questions']}"
        mastered = f"{quiz['mastered']}/{quiz['questions']}"
        lines.append(
            f"  {quiz['id']!s:<16} {str(quiz['title'])[:36]:<36} {best:>6} {mastered:>9}"
            f" {quiz['attempts']!s:>9}"
        )
    return "\n".join(lines)


def _ascii_only(flag: bool) -> bool:
    """--ascii, or a locale that does not promise UTF-8 (block characters would garble)."""
    from tui_course.terminal import locale_is_utf8

    return flag or not locale_is_utf8()


def _colour_console() -> Console | None:
    """A Rich console when stdout is a colour terminal, else None (plain text, no codes)."""
    import os

    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return None
    from rich.console import Console

    return Console(highlight=False)


def run_attention(args: argparse.Namespace) -> int:
    from tui_course.maths.explore import AttentionSetup, NoWordsError, explore_attention
    from tui_course.render.blocks import BlockError, attention_extras, attention_summary, query_row
    from tui_course.render.heatmap import heatmap_cells, heatmap_rich, heatmap_text

    sentence = " ".join(args.words) or DEFAULT_SENTENCE
    setup = AttentionSetup(sentence, args.embeddings, not args.no_scale, args.causal, args.heads)
    try:
        result = explore_attention(setup)
    except NoWordsError as error:
        return _fail(f"attention: error: WORD: {error}", 2)
    try:
        row = query_row(result, args.query) if args.query else 0
    except BlockError:
        words = ", ".join(dict.fromkeys(result.tokens))
        return _fail(f"attention: error: --query: '{args.query}' is not one of: {words}", 2)
    console = _colour_console()
    ascii_only = _ascii_only(args.ascii)
    print(attention_summary(result))
    for note in result.notes:
        print(f"  {note}")
    for head in range(result.weights.shape[0]):
        print()
        if result.weights.shape[0] > 1:
            print(f"head {head + 1}")
        args_ = (result.weights[head], result.tokens, result.tokens, row)
        if console is not None:
            console.print(heatmap_rich(heatmap_cells(*args_)), soft_wrap=True)
        else:
            print(heatmap_text(heatmap_cells(*args_)))
    print()
    print("\n".join(attention_extras(result, row, {"output": True}, ascii_only)))
    return 0


def run_pe(args: argparse.Namespace) -> int:
    from tui_course.render.positional import pe_report

    print(pe_report(args.positions, args.dim, shaded=True, similarity=args.similarity))
    return 0


def run_train(args: argparse.Namespace, data: Path) -> int:
    import asyncio

    from tui_course.training.options import options_from_args
    from tui_course.training.runner import TRAIN_EXTRA_MISSING, TrainingRun, train_extra_installed

    if not train_extra_installed():
        return _fail(f"train: {TRAIN_EXTRA_MISSING}", 2)
    options = options_from_args(args)
    try:
        run = TrainingRun.for_options(options, data)
    except OSError as error:
        return _fail(f"train: cannot write logs under {data}: {error}")
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
    from tui_course.training.protocol import Done, EpochEnd, Error, Started

    if isinstance(event, Started):
        print(
            f"training {event.model}{'' if event.position else ' without positions'}: "
            f"{event.params:,} parameters, {event.epochs} epochs of {event.batches} batches "
            f"(log: {event.log})",
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
        print(f"{PROG}: train: {event.message}", file=sys.stderr)
        for line in event.log_tail:
            print(f"  {line}", file=sys.stderr)


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
        from tui_course.training.protocol import BatchProgress, Done, EpochEnd, Error, Started

        if isinstance(event, Started):
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
