"""The training child's first instructions: die with the parent that started it.

`python -m tui_course.training` calls `hold_on_to_parent()` before it imports anything
else, so there is no window in which a dropped SSH session leaves a child loading
TensorFlow on its own. Two parts, because either alone leaves a gap:
- prctl(PR_SET_PDEATHSIG) asks Linux to send SIGTERM when the parent dies from now on;
- the parent's pid, passed in PARENT_PID_ENV, is compared with getppid(): a parent that
  died between fork and prctl is noticed at once (the child was re-parented).
Imports only the standard library's smallest modules; the app imports this module only
for PARENT_PID_ENV.
"""

from __future__ import annotations

import os
import sys

PARENT_PID_ENV = "ATTN_TUI_PARENT_PID"
ORPHANED_EXIT = 75  # EX_TEMPFAIL: the run was not started, nobody is waiting for it
PR_SET_PDEATHSIG = 1
SIGTERM = 15


def set_death_signal() -> bool:
    """Linux only; elsewhere the next event line fails on the closed pipe and the child
    exits then. True when the kernel accepted it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def parent_is_gone(environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """True when the pid the parent wrote down is no longer our parent."""
    expected = environ.get(PARENT_PID_ENV, "")
    return expected.isdigit() and os.getppid() != int(expected)


def hold_on_to_parent() -> None:
    set_death_signal()
    if parent_is_gone():
        os._exit(ORPHANED_EXIT)  # nothing started yet: no buffers, no files to close
