"""`attn-tui import FILE.gift [-o OUT.toml] [--quiz ID]`: a GIFT file as a quiz the app runs.

The module is not called `import` (a Python keyword); the subcommand is.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from tui_course.commands.common import PROG, fail
from tui_course.paths import expand_user


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("import", help="turn a GIFT file into a TOML quiz")
    parser.add_argument("file", metavar="FILE.gift", help="GIFT file (Moodle's question format)")
    parser.add_argument("-o", "--output", metavar="OUT.toml", help="write here (default: stdout)")
    parser.add_argument("--quiz", metavar="ID", help="which quiz, when the file holds several")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.classroom.gift.imported import checked_toml
    from tui_course.classroom.gift.parse import parse_gift
    from tui_course.content.errors import ContentError
    from tui_course.content.tomlfile import read_text

    path = expand_user(args.file)
    shown = path.as_posix()
    try:
        text = read_text(path, shown)
        result = parse_gift(text, shown, default_id=_id_from_name(path.stem))
        quizzes = result.quizzes
        if args.quiz is not None:
            quizzes = [quiz for quiz in quizzes if quiz.data["id"] == args.quiz]
        if len(quizzes) != 1:
            ids = ", ".join(quiz.data["id"] for quiz in result.quizzes)
            if args.quiz is not None:
                return fail(f"error: {shown}: no quiz with id '{args.quiz}' (quizzes: {ids})", 2)
            return fail(f"error: {shown} holds {len(quizzes)} quizzes ({ids}): pick one, --quiz ID")
        toml_text = checked_toml(quizzes[0], shown)
    except ContentError as error:
        return fail(f"error: {error}")
    for note in result.notes:
        print(f"{PROG}: note: {note}", file=sys.stderr)
    return write_output(toml_text, args.output)


def _id_from_name(stem: str) -> str:
    """A quiz id from a file name, for GIFT written elsewhere (no attn-tui header)."""
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")
    return slug or "imported"


def write_output(text: str, output: str | None) -> int:
    """Text to a file (written whole under a new name, then renamed into place: a planted
    link is replaced, never followed) or to stdout."""
    if output is None or output == "-":
        # The formats are UTF-8 whatever the terminal's locale (the XML says so).
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
        return 0
    from tui_course.paths import write_file_safely

    target = expand_user(output)
    try:
        write_file_safely(target, text.encode("utf-8"))
    except OSError as error:
        return fail(f"error: -o: cannot write {target}: {error.strerror or error}")
    return 0
