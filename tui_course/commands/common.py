"""What every command shares: the parser class, the common flags, one-line failures."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

PROG = "attn-tui"


class Parser(argparse.ArgumentParser):
    """Usage errors are one line that names the flag, never a wall of usage text."""

    def error(self, message: str) -> NoReturn:
        from tui_course.safe_text import plain_text  # the message quotes what was typed

        self.exit(2, f"{self.prog}: error: {plain_text(message)} (see {self.prog} --help)\n")


def add_common(parser: argparse.ArgumentParser, default: object) -> None:
    """--content and --data-dir; subcommands pass argparse.SUPPRESS to keep the top's values."""
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


def content_dir(args: argparse.Namespace) -> Path:
    from tui_course.paths import default_content_dir

    content = getattr(args, "content", None)
    return Path(content).expanduser() if content else default_content_dir()


def data_dir(args: argparse.Namespace) -> Path:
    from tui_course.paths import data_dir as resolve

    return resolve(getattr(args, "data_dir", None))


def fail(message: str, code: int = 1) -> int:
    """Messages quote paths, ids and errors that may hold escape codes: print them as text."""
    from tui_course.safe_text import plain_text

    print(f"{PROG}: {plain_text(message)}", file=sys.stderr)
    return code


def ascii_only(flag: bool) -> bool:
    """--ascii, or a locale that does not promise UTF-8 (block characters would garble)."""
    from tui_course.terminal import locale_is_utf8

    return flag or not locale_is_utf8()
