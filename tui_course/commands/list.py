"""`attn-tui list`: every lesson, lab and quiz id with its title (for --open and reset)."""

from __future__ import annotations

import argparse
from typing import Any

from tui_course.commands.common import add_common, content_dir


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("list", help="print lesson, lab and quiz ids with titles")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.content.course import load_course
    from tui_course.content.models import Lab, Lesson
    from tui_course.content.text import strip_control

    course = load_course(content_dir(args))
    for item in course.outline():
        kind = "lesson" if isinstance(item, Lesson) else "lab" if isinstance(item, Lab) else "quiz"
        print(f"{kind:<7} {item.id:<28} {strip_control(item.title)}")
    return 0
