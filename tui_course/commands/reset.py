"""`attn-tui reset QUIZ|LESSON|--all`: forget saved progress, after asking (or --yes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_course.commands.common import PROG, add_common, content_dir, fail, recording_dir


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "reset", help="forget the progress of one quiz or lesson, or all of it"
    )
    parser.add_argument("id", nargs="?", metavar="QUIZ|LESSON", help="the quiz or lesson id")
    parser.add_argument("--all", action="store_true", help="forget everything saved")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def confirm(question: str) -> bool:
    """Ask on the terminal; without one (a pipe, a script) the answer is no: use --yes."""
    if not sys.stdin.isatty():
        print(f"{PROG}: {question} needs --yes when not run on a terminal", file=sys.stderr)
        return False
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def run(args: argparse.Namespace) -> int:
    from tui_course.content.course import load_course
    from tui_course.content.models import Lesson, Quiz
    from tui_course.progress.store import ProgressStore, StoreError

    if args.all == (args.id is not None):
        return fail("reset: name one quiz or lesson id, or give --all", 2)
    course = load_course(content_dir(args))
    item = None
    if args.id is not None:
        item = course.find(args.id)
        if not isinstance(item, Quiz | Lesson):
            ids = [*(q.id for q in course.quizzes), *(lesson.id for lesson in course.lessons)]
            return fail(f"reset: no quiz or lesson '{args.id}' (ids: {', '.join(ids)})", 2)
    what = "ALL saved progress" if item is None else f"the progress of '{item.id}'"
    if not args.yes and not confirm(f"Forget {what}?"):
        print("Nothing was changed.")
        return 1
    data = recording_dir(args)
    try:
        with ProgressStore(data) as store:
            if not store.saving:  # a read-only session: forgetting would touch only a copy
                return fail(f"reset: nothing was changed: {store.notice}")
            if item is None:
                store.forget_everything()
            elif isinstance(item, Quiz):
                store.forget_quiz(item.id)
            else:
                store.forget_lesson(item.id)
    except (StoreError, OSError) as error:
        return fail(f"cannot open progress store in {data}: {error}")
    print(f"Forgot {what}.")
    return 0
