"""The app ends when its terminal or SSH connection goes away, and soon after SIGTERM.

An orphaned full-screen app (its pty closed, its sshd gone) went on for half an
hour at a fifth of a core, and ignored SIGTERM for over a second. `watch` turns
SIGTERM, SIGHUP and a hung-up terminal (POLLHUP or POLLERR on stdin or stdout:
the other end of the pty or pipe closed) into one call on the event loop, which
quits the way q does (saving what it holds); a backstop ends the process if that
has not happened within a second. Pure: no Textual import.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence

BACKSTOP_SECONDS = 0.9  # after the first signal: saved or not, the process is gone by then
HANGUP_EXIT = 129  # 128 + SIGHUP, as a shell reports a hung-up job


def _hung_up(fds: Sequence[int]) -> None:
    """Block (no CPU) until one of `fds` reports a hangup or an error."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, 0)  # no events asked: only POLLHUP, POLLERR and POLLNVAL come
    while True:
        try:
            if poller.poll():
                return
        except InterruptedError:  # pragma: no cover (PEP 475 retries poll itself)
            continue


def end_process(status: int) -> None:
    """After the app has quit on a signal: exit now, skipping the interpreter's teardown of
    a few hundred thousand objects (0.4 s on a busy server). Everything is saved by then."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _terminal_fds() -> list[int]:
    fds = []
    for stream in (sys.__stdin__, sys.__stdout__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and os.isatty(stream.fileno()):
                fds.append(stream.fileno())
    return fds


def watch(loop: asyncio.AbstractEventLoop, leave: Callable[[str, int], None]) -> None:
    """Call `leave(why, exit_status)` on the loop at SIGTERM, SIGHUP or a hung-up terminal;
    then, if the process still runs BACKSTOP_SECONDS later, end it with that status."""
    state = {"left": False}

    def on_loop(why: str, code: int) -> None:
        if state["left"]:
            return
        state["left"] = True
        backstop = threading.Timer(BACKSTOP_SECONDS, os._exit, (code,))
        backstop.daemon = True
        backstop.start()
        leave(why, code)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, on_loop, sig.name, 128 + sig)
    fds = _terminal_fds()
    if not fds or not hasattr(select, "poll"):
        return

    def wait_for_hangup() -> None:
        _hung_up(fds)
        with contextlib.suppress(RuntimeError):  # the loop already closed: nothing to end
            loop.call_soon_threadsafe(on_loop, "terminal gone", HANGUP_EXIT)

    threading.Thread(target=wait_for_hangup, name="hangup-watch", daemon=True).start()
