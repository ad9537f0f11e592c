"""Starting plain mode on this process's own stdin and stdout."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from types import FrameType


def _end_on(signum: int, frame: FrameType | None) -> None:
    from tui_course.plain.console import Gone

    del frame
    raise Gone(signal.Signals(signum).name, 128 + signum)


def start_course(
    content: Path, data: Path, open_id: str | None, plain: bool = False, colour: bool = False
) -> int:
    """The course on this terminal: the full-screen app, or plain mode without a terminal
    (a pipe, ssh -T) or with TERM=dumb; one line and exit 2 with nothing to read from."""
    import os

    from tui_course.plain.start import nothing_to_read, say_no_terminal, wants_plain

    if plain or wants_plain(os.environ, sys.stdin, sys.stdout):
        if not plain and nothing_to_read(sys.stdin):
            return check_open_id(content, open_id) or say_no_terminal()
        return run_plain(content, data, open_id, colour)
    from tui_course.commands.launch import run_app

    return run_app(content, data, open_id)


def check_open_id(content: Path, open_id: str | None) -> int:
    """2 (and the CLI's one line) for an --open id the course does not have, else 0."""
    from tui_course.commands.common import fail
    from tui_course.content.course import load_course
    from tui_course.content.models import REVIEW_ID

    if open_id is None or open_id == REVIEW_ID:
        return 0
    course = load_course(content, lesson_blocks=False)
    if course.find(open_id) is not None:
        return 0
    known = ", ".join(item.id for item in course.outline()) or "none found"
    return fail(f"error: --open: no lesson, quiz or lab with id '{open_id}' (ids: {known})", 2)


def run_plain(content: Path, data: Path, open_id: str | None, colour: bool = False) -> int:
    """Plain mode on this process's stdin and stdout; the exit status."""
    from tui_course.commands.common import fail
    from tui_course.content.course import load_course
    from tui_course.plain.console import Console
    from tui_course.plain.course import PlainCourse
    from tui_course.plain.start import terminal_size
    from tui_course.progress.store import ProgressStore, StoreError
    from tui_course.runtime.terminal import locale_is_utf8

    if code := check_open_id(content, open_id):
        return code
    course = load_course(content, lesson_blocks=False)
    try:
        store = ProgressStore(data, interactive=True)
    except (StoreError, OSError) as error:
        return fail(f"cannot open progress store in {data}: {error}")
    width, height = terminal_size(sys.stdout)
    console = Console(
        sys.stdin,
        sys.stdout,
        width=width,
        height=height,
        ascii_only=not locale_is_utf8(),
        colour=colour,
        echo=not sys.stdin.isatty(),
    )
    previous = {sig: signal.signal(sig, _end_on) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def resized(signum: int, frame: FrameType | None) -> None:
        """Lines written from now on fit the new width (nothing is redrawn)."""
        del signum, frame
        columns, lines = terminal_size(sys.stdout)
        console.width, console.height = max(columns, 20), max(lines, 5)

    previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, resized)
    try:
        return PlainCourse(course, store, console, data).run(open_id)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        store.close()
