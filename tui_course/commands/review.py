"""`attn-tui review`: open the review queue, or `--due` to print what is due."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_course.commands.common import PROG, add_common, content_dir, fail, recording_dir


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "review", help="go through the questions due for review (missed or revealed ones)"
    )
    parser.add_argument("--due", action="store_true", help="print what is due and exit")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.content.models import REVIEW_ID

    if not args.due:
        from tui_course.commands.launch import run_app

        return run_app(content_dir(args), recording_dir(args), REVIEW_ID)  # (cli: start_course)
    from tui_course.progress.review import ReviewSchedule
    from tui_course.progress.store import ProgressStore, StoreError

    data = recording_dir(args)
    try:
        with ProgressStore(data) as store:
            if store.notice:
                print(f"{PROG}: {store.notice}", file=sys.stderr)
            schedule = ReviewSchedule(store)
            due, later = schedule.due(), schedule.next_due()
    except (StoreError, OSError) as error:
        return fail(f"cannot open progress store in {data}: {error}")
    print(f"{len(due)} due for review")
    for item in due:
        print(f"  {item.quiz_id} question {item.question} (due {item.due})")
    if not due and later:
        print(f"next one due {later}")
    return 0
