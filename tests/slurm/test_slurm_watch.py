"""The Slurm watcher's signal handling, without a cluster.

The watcher (tui_course.training.slurm_job) cancels the job when the app dies: the
kernel sends it SIGTERM (PR_SET_PDEATHSIG). Its handler once called Event.set(), and a
signal that landed while run() was inside Event.wait, holding the Event's own lock,
waited for that lock forever: in one loaded run of the suite a killed app left its
pending job in squeue. The handler now stores the number and nothing more.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs in a child of its own: a handler that regressed to taking a lock hangs it, and
# the timeout turns that into a failure instead of a hung suite.
WHILE_HOLDING_THE_LOCK = """
import os, signal
from pathlib import Path
from tui_course.training.slurm_job import Watch

watch = Watch(["true"], "token", "attn-tui-train", Path(os.devnull), True, None, None)
watch.listen((signal.SIGTERM, signal.SIGHUP))
with watch.stop._cond:  # where run() is while it rests in Event.wait
    os.kill(os.getpid(), signal.SIGTERM)
    seen = [n for n in range(3)]  # the handler runs between these bytecodes
print(watch.signalled, watch.stop.is_set())
watch.rest(3600)  # the signal's byte is waiting in the wakeup pipe: returns at once
print("rested")
"""


def test_a_signal_while_the_stop_event_is_locked_is_noted_and_wakes_the_rest() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", WHILE_HOLDING_THE_LOCK],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("the watcher hung on a signal (a lock in its handler?)") from None
    assert done.returncode == 0, done.stderr
    # noted (15 = SIGTERM) but the Event is run()'s to set, outside any handler
    assert done.stdout.split("\n") == ["15 False", "rested", ""]
