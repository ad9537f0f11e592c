"""The command line's parser, apart from the front door (cli.py) so that plain mode can
parse a lab's command with it without importing the front door that starts plain mode."""

from __future__ import annotations

import importlib
from collections.abc import Collection

from tui_course import __version__
from tui_course.commands import COMMANDS
from tui_course.commands.common import PROG, Parser, add_common, describe_subcommands


def build_parser(only: Collection[str] | None = None) -> Parser:
    """The whole parser, or (given `only`) one whose other commands are bare names.

    A bare name still parses as a choice, so errors read the same, but its
    module is not imported: starting the app imports no command module at all.
    """
    parser = Parser(prog=PROG, description="A terminal course on Transformers and self-attention.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--open", metavar="ID", help="start on this lesson or quiz id")
    parser.add_argument(
        "--ascii",
        action="store_true",
        dest="ascii_app",
        help="draw the app in ASCII only: no box drawing or block glyphs "
        "(the default when the locale is not UTF-8; also ATTN_TUI_ASCII=1)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="the course as plain lines of text, for screen readers, braille displays and "
        "pipes (the default without a terminal or with TERM=dumb)",
    )
    parser.add_argument("--color", action="store_true", help="colour verdicts in --plain mode")
    add_common(parser, None)
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=Parser)
    for name, module in COMMANDS.items():
        if only is None or name in only:
            importlib.import_module(f"tui_course.commands.{module}").add_parser(commands)
        else:
            commands.add_parser(name)
    describe_subcommands(parser)
    return parser
