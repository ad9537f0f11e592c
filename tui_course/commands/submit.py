"""`attn-tui submit`: send a summary of every quiz to the class drop-box now."""

from __future__ import annotations

import argparse
from typing import Any

from tui_course.commands.common import add_common, content_dir, data_dir, fail


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("submit", help="send your progress to the class drop-box")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.classroom.config import ConfigError, load_site_config
    from tui_course.classroom.submission import build_submission, submit
    from tui_course.content.course import load_course
    from tui_course.paths import site_config_path
    from tui_course.progress.report import progress_report
    from tui_course.progress.store import ProgressStore, StoreError

    try:
        site = load_site_config()
    except ConfigError as error:
        return fail(f"submit: {error}")
    if site.class_dir is None:
        return fail(f"submit: no class folder is set up (no class_dir in {site_config_path()})")
    from tui_course.progress.practice import NOT_SENT, is_practice, is_site_course

    if not is_site_course(content_dir(args)) or is_practice(data_dir(args)):
        return fail(f"submit: only the site's course goes to the class folder; {NOT_SENT}")
    course = load_course(content_dir(args))
    data = data_dir(args)
    try:
        with ProgressStore(data) as store:
            payload = build_submission(progress_report(course, store))
    except (StoreError, OSError) as error:
        return fail(f"submit: cannot open progress store in {data}: {error}")
    outcome = submit(payload, site.class_dir, data)
    if outcome.error:
        return fail(
            f"submit: not delivered ({outcome.error}); {outcome.pending} submission(s) kept"
            " and sent again next time"
        )
    print(f"submitted {len(payload['quizzes'])} quiz summaries to {site.class_dir}")
    return 0
