"""The front door: `attn-tui [--open ID] [--content DIR] [--data-dir DIR] [SUBCOMMAND]`.

Each subcommand lives in its own module under tui_course.commands.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Collection
from types import SimpleNamespace

from tui_course.commands import COMMANDS
from tui_course.paths import UnknownUserPath
from tui_course.plain.run import start_course


def commands_needed(argv: list[str]) -> Collection[str] | None:
    """The command modules a command line may use: those named in it, or all for --help."""
    if any(word in ("-h", "--help") for word in argv):
        return None
    return {word for word in argv if word in COMMANDS}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # What the parser gave (nothing yet): the data folder a crash report goes to reads it.
    args: object = SimpleNamespace()
    for stream in (sys.stdout, sys.stderr):
        # A title in CJK on an ASCII-only terminal prints as '?', it does not stop the command.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    try:
        if "SSH_ORIGINAL_COMMAND" in os.environ and not commands_needed(argv):
            # Under the lab's ForceCommand: what the student's ssh asked for.
            from tui_course.plain import start as forced

            sent = forced.sent_command(os.environ)
            refused = forced.refused_command(os.environ)
            if sent:
                argv = sent
            elif refused is not None:  # `ssh lab 'sh -c id'`: said so, whatever the terminal
                return forced.say_not_allowed(refused)
            elif sent is None and forced.wants_plain(os.environ, sys.stdin, sys.stdout):
                return forced.say_no_terminal()
        if not argv:
            # Plain `attn-tui`, what students type: no flags, so no parser to build and no
            # argparse to import (a few milliseconds of every start).
            from tui_course.paths import data_dir as resolve_data_dir
            from tui_course.paths import default_content_dir

            return start_course(default_content_dir(), resolve_data_dir(None), None)
        from tui_course.commands.common import content_dir, recording_dir
        from tui_course.commands.parser import build_parser

        args = build_parser(commands_needed(argv)).parse_args(argv)
        if args.command is None:
            if args.ascii_app:
                from tui_course.runtime.terminal import ASCII_ENV

                os.environ[ASCII_ENV] = "1"  # every glyph choice reads it (terminal.py)
            modes = (args.plain, args.color)
            return start_course(content_dir(args), recording_dir(args), args.open, *modes)
        if args.command == "review" and not args.due:  # the review queue opens the course
            from tui_course.content.models import REVIEW_ID

            modes = (args.plain, args.color)
            return start_course(content_dir(args), recording_dir(args), REVIEW_ID, *modes)
        code: int = args.run(args)
        sys.stdout.flush()  # a pipe closed early fails here, inside the try, not at exit
        return code
    except KeyboardInterrupt:
        return 130
    except UnknownUserPath as error:  # `--data-dir ~nosuchuser/x`, or the same in $ATTN_TUI_*
        from tui_course.commands.common import fail

        return fail(f"{error.filename}: {error.strerror}", 2)
    except BrokenPipeError:
        # `attn-tui attention | head`: the reader left; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # a bug or hostile input we did not foresee: one line, a log
        from tui_course.paths import data_dir as resolve_data_dir
        from tui_course.runtime.crash import report_crash

        return report_crash(resolve_data_dir(getattr(args, "data_dir", None)), error)
