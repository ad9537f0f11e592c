"""`attn-tui doctor`: check the terminal, the data folder, the train extra, the class and slots."""

from __future__ import annotations

import argparse
from typing import Any

from tui_course.commands.common import add_common, data_dir


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("doctor", help="check this account and server for problems")
    parser.add_argument(
        "--teacher",
        action="store_true",
        help="also check what a teacher needs (done anyway for members of the class's group)",
    )
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from tui_course.classroom.doctor import BLOCKER, format_checks, run_checks
    from tui_course.runtime.terminal import locale_is_utf8
    from tui_course.training.runner import train_extra_installed

    size: os.terminal_size | None = None
    for stream in (sys.stdout, sys.stderr, sys.stdin):  # `attn-tui doctor | less` still knows
        try:
            size = os.get_terminal_size(stream.fileno())
            break
        except (OSError, ValueError):
            continue
    checks = run_checks(
        os.environ,
        size,
        locale_is_utf8(),
        data_dir(args),
        train_extra_installed,
        True if args.teacher else None,
    )
    print(format_checks(checks))
    return 1 if any(check.status == BLOCKER for check in checks) else 0
