"""The front door: `attn-tui [--open ID] [--content DIR] [--data-dir DIR] [SUBCOMMAND]`.

Each subcommand lives in its own module under tui_course.commands.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Collection

from tui_course import __version__
from tui_course.commands import COMMANDS
from tui_course.commands.common import (
    PROG,
    Parser,
    add_common,
    content_dir,
    data_dir,
    describe_subcommands,
    fail,
)
from tui_course.commands.launch import run_app
from tui_course.paths import UnknownUserPath


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


def commands_needed(argv: list[str]) -> Collection[str] | None:
    """The command modules a command line may use: those named in it, or all for --help."""
    if any(word in ("-h", "--help") for word in argv):
        return None
    return {word for word in argv if word in COMMANDS}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = argparse.Namespace()
    for stream in (sys.stdout, sys.stderr):
        # A title in CJK on an ASCII-only terminal prints as '?', it does not stop the command.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    try:
        if "SSH_ORIGINAL_COMMAND" in os.environ and not commands_needed(argv):
            # Under the lab's ForceCommand: what the student's ssh asked for.
            from tui_course.plain.start import say_no_terminal, sent_command, wants_plain

            sent = sent_command(os.environ)
            if sent:
                argv = sent
            elif sent is None and wants_plain(os.environ, sys.stdin, sys.stdout):
                return say_no_terminal()
        if not argv:
            # Plain `attn-tui`, what students type: no flags, so no parser to build (argparse
            # setup is a few milliseconds of every start).
            return run_app(content_dir(args), data_dir(args), None)
        args = build_parser(commands_needed(argv)).parse_args(argv)
        if args.command is None:
            if args.ascii_app:
                from tui_course.terminal import ASCII_ENV

                os.environ[ASCII_ENV] = "1"  # every glyph choice reads it (terminal.py)
            return run_app(content_dir(args), data_dir(args), args.open, args.plain, args.color)
        code: int = args.run(args)
        sys.stdout.flush()  # a pipe closed early fails here, inside the try, not at exit
        return code
    except KeyboardInterrupt:
        return 130
    except UnknownUserPath as error:  # `--data-dir ~nosuchuser/x`, or the same in $ATTN_TUI_*
        return fail(f"{error.filename}: {error.strerror}", 2)
    except BrokenPipeError:
        # `attn-tui attention | head`: the reader left; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # a bug or hostile input we did not foresee: one line, a log
        from tui_course.crash import report_crash

        return report_crash(data_dir(args), error)
