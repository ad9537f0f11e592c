"""The labs as short command loops over the CLI's own commands.

What a student types after the prompt is what they would type after
`attn-tui attention`, `attn-tui pe` or `attn-tui train`: the same parser checks it
(ranges from specs.py, one-line errors), the same command prints the figure, and
plain mode adds the numbers in words. Which labs there are, and which loop runs each,
comes from the registry in content/labs.py.

A loop gets a LabHost, not the plain course itself: the course runs the labs (it imports
this module), so this module does not import it back.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui_course.content.models import Lab

if TYPE_CHECKING:
    import argparse

    from tui_course.maths.explore import AttentionResult
    from tui_course.plain.console import Console
    from tui_course.training.options import TrainOptions
    from tui_course.training.runner import TrainingRun

ATTENTION_SENTENCE = "The train left the station on time"
REAL_SENTENCE = "The animal didn't cross the street because it was too tired."
PE_DEFAULT = ["--positions", "10", "--dim", "8", "--similarity"]
PE_WORDS = ("positions", "dim", "start", "similarity")


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """The CLI fits its figures to $COLUMNS when it is not on a terminal: plain mode's width."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def parse_cli(argv: list[str]) -> tuple[argparse.Namespace | None, list[str]]:
    """The CLI's parser on `argv`: its arguments, or None and its one-line error."""
    from tui_course.commands.parser import build_parser

    parser = build_parser({argv[0]})
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(errors):
            return parser.parse_args(argv), []
    except SystemExit:
        return None, errors.getvalue().splitlines()


def run_cli(args: argparse.Namespace, width: int) -> list[str]:
    """Run a parsed command; what it prints (stdout, then any error) as lines."""
    out, errors = io.StringIO(), io.StringIO()
    with _columns(width), contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
        args.run(args)
    return out.getvalue().rstrip("\n").split("\n") + errors.getvalue().splitlines()


class LabHost(Protocol):
    """What a lab's loop uses of plain mode (plain.course.PlainCourse is the one)."""

    console: Console
    data_dir: Path
    training_runs: Callable[[TrainOptions], TrainingRun]
    training_extra_installed: Callable[[], bool]

    def course_words(self, line: str) -> None:
        """Raise Command for a course-wide word typed at a lab's prompt (q, go...)."""
        ...


def run_lab(course: LabHost, lab: Lab) -> None:
    """The lab's summary, then its loop (the one its registry entry names)."""
    from tui_course.content.labs import lab_kind
    from tui_course.content.named import named

    try:
        runner = named(lab_kind(lab.id).plain)
    except ValueError:
        course.console.say(f"The lab {lab.id} has no plain version.")
        return
    course.console.say(lab.summary if lab.summary.endswith(".") else f"{lab.summary}.")
    runner(course)


def _loop_prompt(course: LabHost, prompt: str) -> str | None:
    """A line for a lab; None when the student presses Enter to go on."""
    line = course.console.ask(prompt).strip()
    course.course_words(line)
    return line or None


def attention_lab(course: LabHost) -> None:
    from tui_course.render.spoken import weights_in_words

    say = course.console.say
    say(
        "Type a sentence to see how each word attends to the others. Flags as for "
        "attn-tui attention work too, alone or after the sentence: --query WORD, "
        "--heads 2, --causal, --no-scale, --embeddings toy-cat-sat."
    )
    words, flags = ATTENTION_SENTENCE.split(), ["--query", "train"]
    while True:
        args, problem = parse_cli(["attention", *words, *flags])
        if args is None:
            course.console.say_all(problem)
        else:
            course.console.say_all(run_cli(args, course.console.width))
            result, row = _attention_result(args)
            if result is not None:
                say()
                say("In words:")
                for head in range(result.heads):
                    said = weights_in_words(result.weights[head, row], result.tokens, row)
                    say(f"Head {head + 1}: {said}" if result.heads > 1 else said)
        line = _loop_prompt(course, "A sentence or flags; Enter: next item")
        if line is None:
            return
        new_words, flags = split_words(line)
        if new_words:
            words = new_words


def split_words(line: str) -> tuple[list[str], list[str]]:
    """'the cat sat --query sat' -> the sentence's words, then the flags (from the first --)."""
    typed = line.split()
    first = next((i for i, word in enumerate(typed) if word.startswith("--")), len(typed))
    return typed[:first], typed[first:]


def _attention_result(args: argparse.Namespace) -> tuple[AttentionResult | None, int]:
    from tui_course.maths.embeddings import tokenize
    from tui_course.maths.explore import AttentionSetup, NoWordsError, explore_attention
    from tui_course.render.blocks import BlockError, query_row

    sentence = " ".join(args.words) or ATTENTION_SENTENCE
    if args.model is not None or not tokenize(sentence):
        return None, 0
    setup = AttentionSetup(sentence, args.embeddings, not args.no_scale, args.causal, args.heads)
    try:
        result = explore_attention(setup)
        row = query_row(result, args.query) if args.query else 0
    except (NoWordsError, BlockError):
        return None, 0
    return result, row or 0


def pe_lab(course: LabHost) -> None:
    from tui_course.render.spoken import similarity_in_words

    course.console.say(
        "Rows are positions, columns dimensions. Type flags as for attn-tui pe: "
        "positions 6, dim 4, start 100, similarity (the -- may be left out)."
    )
    flags = list(PE_DEFAULT)
    while True:
        args, problem = parse_cli(["pe", *flags])
        if args is None:
            course.console.say_all(problem)
        else:
            course.console.say_all(run_cli(args, course.console.width))
            if args.similarity:
                course.console.say()
                course.console.say("In words:")
                course.console.say_all(similarity_in_words(args.positions, args.dim, args.start))
        line = _loop_prompt(course, "Flags such as positions 6 dim 4; Enter: next item")
        if line is None:
            return
        flags = [f"--{word}" if word in PE_WORDS else word for word in line.split()]


def real_model_lab(course: LabHost) -> None:
    from tui_course.realmodel import real_extra_missing

    missing = real_extra_missing()
    if missing is not None:
        course.console.say(f"The real model is not installed: {missing}")
        return
    course.console.say(
        "Type a sentence; all-MiniLM-L6-v2 reads it. Flags as for attn-tui attention "
        "--model minilm work too: --query it, --layer 3 --head 5, --top, --merge-words."
    )
    words, flags = REAL_SENTENCE.split(), ["--query", "it"]
    while True:
        args, problem = parse_cli(["attention", "--model", "minilm", *words, *flags])
        if args is None:
            course.console.say_all(problem)
        else:
            args.data_dir = str(course.data_dir)
            course.console.say_all(run_cli(args, course.console.width))
            course.console.say_all(_real_words(course, args))
        line = _loop_prompt(course, "A sentence or flags; Enter: next item")
        if line is None:
            return
        new_words, flags = split_words(line)
        if new_words:
            words = new_words


def _real_words(course: LabHost, args: argparse.Namespace) -> list[str]:
    """The query's weights in the head the CLI chose, in a sentence."""
    from tui_course.plain.figures import model_attention
    from tui_course.realmodel.attention import QueryError
    from tui_course.render.spoken import weights_in_words

    if args.json or args.model_view or args.top:
        return []
    sentence = " ".join(args.words) or REAL_SENTENCE
    attention = model_attention(sentence, course.data_dir, merge=args.merge_words)
    if isinstance(attention, str):
        return []
    try:
        query = attention.find(args.query) if args.query else attention.default_query()
        layer = None if args.layer is None else args.layer - 1
        head = None if args.head is None else args.head - 1
        chosen_layer, chosen_head = attention.telling_head(query, layer, head)
    except (QueryError, IndexError, ValueError):
        return []
    weights = attention.weights[chosen_layer, chosen_head, query]
    said = weights_in_words(weights, attention.labels, query)
    return ["", f"In words (layer {chosen_layer + 1}, head {chosen_head + 1}):", said]


def training_lab(course: LabHost) -> None:
    from tui_course.training.runner import TRAIN_EXTRA_MISSING

    say = course.console.say
    if not course.training_extra_installed():
        say(f"Training {TRAIN_EXTRA_MISSING}.")
        return
    say(
        "Train lesson 10's digit task in a child process, one line per epoch. Type t to "
        "train with the defaults, or options as for attn-tui train: --model lstm "
        "--epochs 3 --length 60. Ctrl+C stops a run."
    )
    while True:
        line = _loop_prompt(course, "t or options to train; Enter: next item")
        if line is None:
            return
        typed = [] if line.lower() in ("t", "train") else line.split()
        args, problem = parse_cli(["train", *typed])
        if args is None:
            course.console.say_all(problem)
            continue
        train(course, args)


def train(course: LabHost, args: argparse.Namespace) -> None:
    """One run through training/runner.py (the course's factory: tests use a fake child),
    each event said as `attn-tui train` prints it in a pipe."""
    from tui_course.commands.train import print_plain_training
    from tui_course.training.options import options_from_args

    run = course.training_runs(options_from_args(args))

    async def follow() -> None:
        async for event in run.events():
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                print_plain_training(event)
            course.console.say_all(out.getvalue().rstrip("\n").split("\n"))

    try:
        asyncio.run(follow())
    except KeyboardInterrupt:
        course.console.say("Training cancelled.")
