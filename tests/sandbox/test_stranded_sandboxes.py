"""A checker killed while bwrap sets up a sandbox can leave bwrap's child asleep for ever (it
waits on its dead parent, as the namespace's pid 1); the next checker ends such a child and
never a live sandbox's. The stranded child is made here for certain: a marked bwrap without
--as-pid-1 (its child stays bwrap, as pid 1 of the namespace) whose parent is then killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.sandbox.conftest import REPO, bwrap_report
from tui_course.sandbox.runner import MARK_ENV, end_stranded_sandboxes

SCRIPT = r"""
import ctypes, json, os, signal, subprocess, sys, time
from tui_course.sandbox.runner import MARK_ENV, end_stranded_sandboxes

bwrap = sys.argv[1]
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # subreaper: the orphan comes here

def wait_for(condition, what):
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.01)

def parent_of(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])

def children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as handle:
        return [int(word) for word in handle.read().split()]

user = [] if os.getuid() == 0 else ["--unshare-user"]
env = {"PATH": os.environ["PATH"], MARK_ENV: "test-mark"}
command = [bwrap, "--unshare-pid", *user, "--dev-bind", "/", "/", "sleep", "600"]
outer = subprocess.Popen(command, env=env)
wait_for(lambda: children(outer.pid), "bwrap's child")
inner = children(outer.pid)[0]
while_live = end_stranded_sandboxes(bwrap)
outer_lives = outer.poll() is None
outer.kill()
outer.wait()
wait_for(lambda: parent_of(inner) == os.getpid(), "the child to be orphaned")
stranded = end_stranded_sandboxes(bwrap)
_, status = os.waitpid(inner, 0)
killed_by = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
seen = {"inner": inner, "while_live": while_live, "outer_lives": outer_lives}
print(json.dumps(dict(seen, stranded=stranded, signal=killed_by)))
"""


def test_a_stranded_child_is_ended_and_a_live_sandbox_is_not() -> None:
    report = bwrap_report()
    if report is None or report.bwrap is None:
        pytest.skip("no usable bwrap on this machine")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, report.bwrap],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["while_live"] == [] and seen["outer_lives"]
    assert seen["stranded"] == [seen["inner"]]
    assert seen["signal"] == 9


def test_a_marked_bwrap_that_is_not_a_namespaces_pid_1_is_left_alone() -> None:
    """The outer bwrap of a live sandbox: marked, its parent unmarked, but in our namespace."""
    report = bwrap_report()
    if report is None or report.bwrap is None:
        pytest.skip("no usable bwrap on this machine")
    user = [] if os.getuid() == 0 else ["--unshare-user"]
    env = {"PATH": os.environ["PATH"], MARK_ENV: "test-mark"}
    command = [report.bwrap, *user, "--dev-bind", "/", "/", "sleep", "600"]
    bystander = subprocess.Popen(command, env=env, start_new_session=True)
    try:
        # once its child runs `sleep`: killed earlier, bwrap strands that child itself
        for _ in range(3000):
            if any(_runs_sleep(child) for child in _children(bystander.pid)):
                break
            time.sleep(0.01)
        assert end_stranded_sandboxes(report.bwrap) == []
        assert bystander.poll() is None
    finally:
        os.killpg(bystander.pid, signal.SIGKILL)
        bystander.wait()


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            return [int(word) for word in handle.read().split()]
    except OSError:
        return []


def _runs_sleep(pid: int) -> bool:
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "sleep"
    except OSError:
        return False
