"""`attn-tui validate [DIR]`: check a content folder and prove its answer keys."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_course.commands.common import content_dir
from tui_course.paths import expand_user


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "validate", help="check a content folder and prove its answer keys"
    )
    parser.add_argument("dir", nargs="?", metavar="DIR", help="content folder (default: shipped)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.text.safe import path_text
    from tui_course.validation.course import validate

    root = expand_user(args.dir) if args.dir else content_dir(args)
    report = validate(root)
    for problem in report.problems:
        print(problem)
    for note in report.notes:
        print(f"note: {note}")
    for warning in report.warnings:
        print(f"warning: {warning}")
    if not report.ok:
        print(f"{len(report.problems)} problem(s) found in {path_text(root)}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0
