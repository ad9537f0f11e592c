"""What every command shares: the parser class, the common flags, one-line failures."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from rich.console import Console

from tui_course.paths import expand_user

PROG = "attn-tui"


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, except that an epilog starting "example:" keeps its lines: a
    command wrapped in the middle ("... sat the cat sat" / "down") cannot be copied."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example:"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """Usage errors are one line that names the flag, never a wall of usage text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from tui_course.text.safe import plain_text  # the message quotes what was typed

        self.exit(2, f"{self.prog}: error: {plain_text(message)} (see {self.prog} --help)\n")


def describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """Give each subcommand's own --help the line the list of commands shows for it:
    `attn-tui validate --help` said nothing about what validate does."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                sub = action.choices.get(choice.dest)
                if isinstance(sub, argparse.ArgumentParser):
                    if sub.description is None and choice.help:
                        sub.description = choice.help[:1].upper() + choice.help[1:] + "."
                    describe_subcommands(sub)


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
    return expand_user(content) if content else default_content_dir()


def data_dir(args: argparse.Namespace) -> Path:
    from tui_course.paths import data_dir as resolve

    return resolve(getattr(args, "data_dir", None))


def recording_dir(args: argparse.Namespace) -> Path:
    """Where what is answered or checked goes: the data folder for the site's course, a
    practice store of its own for any other --content (tui_course.progress.practice)."""
    from tui_course.progress.practice import recording_dir as chosen

    return chosen(data_dir(args), content_dir(args))


def fail(message: str, code: int = 1) -> int:
    """Messages quote paths, ids and errors that may hold escape codes: print them as text."""
    from tui_course.text.safe import plain_text

    print(f"{PROG}: {plain_text(message)}", file=sys.stderr)
    return code


def ascii_only(flag: bool) -> bool:
    """--ascii, or a locale that does not promise UTF-8 (block characters would garble)."""
    from tui_course.runtime.terminal import locale_is_utf8

    return flag or not locale_is_utf8()


def colour_console() -> Console | None:
    """A Rich console when stdout is a colour terminal, else None (plain text, no codes)."""
    import os

    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return None
    from rich.console import Console

    return Console(highlight=False)
