"""Who holds a run file: the kernel's facts about a lock holder and its training child.

A flock on `queue/run-<hex>` proves only that some process of some account opened the
file. A slot is counted for a run only when the holder belongs to the file's account
and has a live training child of that account (`python -m tui_course.training`, not
stopped): a student's shell that flocks a file, or a run frozen with ctrl+z, holds
nothing. The child's start time, which no process can change, is the run's age.

Everything here reads /proc (world-readable facts: status, stat, cmdline, children).
Where /proc hides other accounts' processes (mounted with hidepid), the holder cannot
be seen and `Holder.visible` is False: the caller falls back to the lock alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TRAINING_MODULE = ("-m", "tui_course.training")
MAX_CHILDREN = 64  # children of one holder looked at
_PROC = Path("/proc")


@dataclass(frozen=True)
class Holder:
    pid: int
    visible: bool  # /proc shows the process (False: gone, or hidden by hidepid)
    uid: int | None = None  # its real uid
    stopped: bool = False  # ctrl+z, SIGSTOP, traced, or a zombie
    child_started_ns: int | None = None  # its live training child's start (wall clock)


def _status(pid: int) -> tuple[int | None, str] | None:
    """Real uid and state letter from /proc/PID/status; None when not visible."""
    try:
        text = (_PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    uid: int | None = None
    state = "?"
    for line in text.splitlines():
        if line.startswith("Uid:"):
            fields = line.split()
            uid = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None
        elif line.startswith("State:"):
            fields = line.split()
            state = fields[1] if len(fields) > 1 else "?"
    return uid, state


def _not_running(state: str) -> bool:
    return state in ("T", "t", "Z", "X", "x")


def _children(pid: int) -> list[int]:
    """Children of every thread of `pid` (a child may be started from any thread)."""
    found: list[int] = []
    try:
        tasks = os.listdir(_PROC / str(pid) / "task")
    except OSError:
        return found
    for task in tasks[:MAX_CHILDREN]:
        try:
            text = (_PROC / str(pid) / "task" / task / "children").read_text(encoding="ascii")
        except OSError:
            continue
        found += [int(word) for word in text.split() if word.isdigit()]
        if len(found) >= MAX_CHILDREN:
            break
    return found[:MAX_CHILDREN]


def is_training_command(argv: list[str]) -> bool:
    """`<python> -m tui_course.training ...`, the command the runner starts."""
    return len(argv) >= 3 and tuple(argv[1:3]) == TRAINING_MODULE


def _argv(pid: int) -> list[str]:
    try:
        data = (_PROC / str(pid) / "cmdline").read_bytes()[:65536]
    except OSError:
        return []
    return data.decode("utf-8", errors="replace").rstrip("\0").split("\0")


def _boot_ns() -> int | None:
    try:
        for line in (_PROC / "stat").read_text(encoding="ascii").splitlines():
            if line.startswith("btime "):
                return int(line.split()[1]) * 1_000_000_000
    except (OSError, ValueError):
        return None
    return None


def started_ns(pid: int) -> int | None:
    """When the process started, on the wall clock (to the second of boot time)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
        ticks = int(text.rsplit(")", 1)[-1].split()[19])  # field 22, starttime
    except (OSError, ValueError, IndexError):
        return None
    boot = _boot_ns()
    if boot is None:
        return None
    return boot + ticks * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def holder(pid: int) -> Holder:
    """The lock holder `pid` and its live training child of the same account, if any."""
    status = _status(pid)
    if status is None:
        return Holder(pid, visible=False)
    uid, state = status
    child_started = None
    for child in _children(pid):
        child_status = _status(child)
        if child_status is None or child_status[0] != uid or _not_running(child_status[1]):
            continue
        if is_training_command(_argv(child)):
            child_started = started_ns(child)
            if child_started is not None:
                break
    return Holder(pid, True, uid, _not_running(state), child_started)
