"""Which front end a start gets: the full-screen app needs a terminal at both ends.

Without one (a pipe, `ssh -T`, a command sent under the lab's ForceCommand, an
editor's probe) or with TERM=dumb or unset, the course runs as plain lines; with
nothing to read from (stdin at end of input, /dev/null) it says, in one line, how
to get a terminal and exits 2.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
import sys
from collections.abc import Mapping
from typing import TextIO

NO_TERMINAL = "attn-tui: no terminal: connect with ssh -t (or use attn-tui --plain)"
NO_TERMINAL_EXIT = 2
NOT_ALLOWED_EXIT = 2
MAX_SHOWN_COMMAND = 60  # characters of a refused command said back
NOT_ALLOWED_HELP = (
    "attn-tui: this account runs only the course: connect with ssh -t, or send one of"
    " attn-tui submit, attn-tui progress, attn-tui doctor, attn-tui list, attn-tui --plain"
)
# What a command sent under ForceCommand may be (SSH_ORIGINAL_COMMAND), beyond the course
# itself: reading and sending one's own progress. Nothing else runs.
SENT_COMMANDS = frozenset({"submit", "doctor", "list", "--version"})
PROGRESS_FORMATS: tuple[list[str], ...] = (
    [],
    ["--format", "table"],
    ["--format", "csv"],
    ["--format", "json"],
)
PLAIN_FLAGS = frozenset({"--plain", "--color", "--ascii"})


def _is_tty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False


def wants_plain(environ: Mapping[str, str], stdin: TextIO | None, stdout: TextIO | None) -> bool:
    """No terminal at one end, or a terminal that cannot be drawn on (TERM dumb or unset)."""
    if not (_is_tty(stdin) and _is_tty(stdout)):
        return True
    return environ.get("TERM", "") in ("", "dumb")


def nothing_to_read(stdin: TextIO | None) -> bool:
    """stdin is closed, /dev/null, or a pipe or file already at its end (without reading
    anything from it: a line waiting there stays for plain mode)."""
    if stdin is None or _is_tty(stdin):
        return False
    try:
        fd = stdin.fileno()
        mode = os.fstat(fd)
    except (OSError, ValueError):
        return True
    if stat.S_ISCHR(mode.st_mode):
        try:
            return mode.st_rdev == os.stat(os.devnull).st_rdev
        except OSError:
            return False
    if stat.S_ISREG(mode.st_mode):
        return os.lseek(fd, 0, os.SEEK_CUR) >= mode.st_size
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return False
    if not ready:
        return False  # open, nothing yet: someone may type (ssh -T from a terminal)
    buffer = getattr(stdin, "buffer", None)
    peek = getattr(buffer, "peek", None)
    if peek is None:
        return False
    try:
        return bool(peek(1) == b"")
    except OSError:
        return True


def sent_command(environ: Mapping[str, str]) -> list[str] | None:
    """The attn-tui arguments of a command sent over SSH under ForceCommand, when it is
    one that may run (`attn-tui submit`); [] for the course itself (`attn-tui`); None for
    anything else, or when no command was sent."""
    text = environ.get("SSH_ORIGINAL_COMMAND")
    if text is None or not text.strip():
        return None
    import shlex  # only under ForceCommand: not start-up work elsewhere

    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "attn-tui":
        return None
    rest = words[1:]
    if not rest:
        return []
    if rest[0] == "--plain":
        return rest if all(word in PLAIN_FLAGS for word in rest) else None
    if rest[0] == "progress":
        return rest if rest[1:] in PROGRESS_FORMATS else None
    return rest if rest[0] in SENT_COMMANDS and len(rest) == 1 else None


def refused_command(environ: Mapping[str, str]) -> str | None:
    """The command a client sent under ForceCommand when it may not run (`sh -c id`, an
    `scp -O`, an editor's probe); None when none was sent or it may run."""
    text = environ.get("SSH_ORIGINAL_COMMAND")
    if text is None or not text.strip() or sent_command(environ) is not None:
        return None
    return text


def say_not_allowed(command: str) -> int:
    """Two lines on stderr: which command was refused, and what this account may send."""
    from tui_course.text.safe import one_line

    shown = one_line(command).strip()
    if len(shown) > MAX_SHOWN_COMMAND:
        shown = shown[: MAX_SHOWN_COMMAND - 3] + "..."
    with contextlib.suppress(OSError, ValueError):
        print(f"attn-tui: not allowed here: {shown}", file=sys.stderr)
        print(NOT_ALLOWED_HELP, file=sys.stderr, flush=True)
    return NOT_ALLOWED_EXIT


def terminal_size(stream: TextIO) -> tuple[int, int]:
    """Columns and lines: the terminal's, else $COLUMNS / $LINES, else 80 x 24."""
    if _is_tty(stream):
        try:
            size = os.get_terminal_size(stream.fileno())
            return size.columns or 80, size.lines or 24
        except (OSError, ValueError):
            pass
    columns, lines = 80, 24
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            if name == "COLUMNS":
                columns = int(value)
            else:
                lines = int(value)
    return columns, lines


def say_no_terminal() -> int:
    with contextlib.suppress(OSError, ValueError):
        print(NO_TERMINAL, file=sys.stderr, flush=True)
    return NO_TERMINAL_EXIT
