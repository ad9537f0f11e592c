"""Waiting for a file to be saved: woken by the kernel (inotify) rather than by a clock.

`attn-tui check --watch` checks again each time the student saves. Polling every half
second made every save wait up to that long before its check began; here the wait is on
an inotify descriptor watching the file's folder (editors that save by writing a new
file and renaming it over the old one are seen too), so a save wakes the loop at once.
The wait still ends after `backstop` seconds without an event: a network or WSL drive
may send no events for changes made elsewhere, and the caller looks at the file anyway.
Where inotify is missing (not Linux, or out of watches), it is the plain poll it was.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import time
from pathlib import Path

# IN_MODIFY is left out: a save is seen when the writer closes the file, not mid-write
IN_ATTRIB, IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE = 0x4, 0x8, 0x80, 0x100
SAVED = IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE


class FileWatch:
    """Wakes when something in a file's folder is saved, created, renamed in or touched."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        if sys.platform.startswith("linux"):
            self._fd = _inotify(path.parent)

    @property
    def woken_by_kernel(self) -> bool:
        return self._fd is not None

    def wait(self, backstop: float) -> bool:
        """Return when the folder changes (True), or after `backstop` seconds (False)."""
        if self._fd is None:
            time.sleep(backstop)
            return False
        ready, _, _ = select.select([self._fd], [], [], backstop)
        if ready:
            self._drain()
        return bool(ready)

    def _drain(self) -> None:
        assert self._fd is not None
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while os.read(self._fd, 1 << 16):
                pass

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FileWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _inotify(folder: Path) -> int | None:
    """An inotify descriptor watching `folder`, or None where that cannot be had."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        init, add = libc.inotify_init1, libc.inotify_add_watch
    except (OSError, AttributeError):
        return None
    fd = int(init(os.O_NONBLOCK | os.O_CLOEXEC))
    if fd < 0:
        return None
    if add(fd, os.fsencode(folder), ctypes.c_uint32(SAVED)) < 0:
        os.close(fd)
        return None
    return fd
