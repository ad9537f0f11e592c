"""The training child dies with its parent from its first instruction (no Keras needed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_python
from tui_course.training.lifeline import ORPHANED_EXIT, PARENT_PID_ENV

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="die-with-parent uses Linux prctl"
)


def test_an_orphan_exits_before_parsing_or_importing_anything(tmp_path: Path) -> None:
    """A parent pid that is not our parent: the parent died before the signal was set."""
    log = tmp_path / "log.txt"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tui_course.training", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, PARENT_PID_ENV: "1"},  # init is never the test's child's parent
    )
    assert result.returncode == ORPHANED_EXIT  # before argparse: --help would exit 0
    assert result.stdout == "" and not log.exists()
    imported = [line.split("|")[-1].strip() for line in result.stderr.splitlines()]
    assert "tui_course.training.lifeline" in imported
    assert not {"numpy", "argparse", "tui_course.training.options"} & set(imported)


def test_the_real_parent_is_recognised() -> None:
    script = (
        "import os, subprocess, sys\n"
        "env = dict(os.environ, ATTN_TUI_PARENT_PID=str(os.getpid()))\n"
        "child = subprocess.run([sys.executable, '-m', 'tui_course.training', '--help'],"
        " env=env, capture_output=True)\n"
        "print(child.returncode)\n"
    )
    assert run_python(script).stdout.strip() == "0"  # it went on to print its help


def test_the_death_signal_is_sigterm() -> None:
    script = (
        "import ctypes\n"
        "from tui_course.training.lifeline import set_death_signal\n"
        "assert set_death_signal()\n"
        "value = ctypes.c_int()\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG\n"
        "print(value.value)\n"
    )
    assert run_python(script).stdout.strip() == str(int(signal.SIGTERM))


SLEEPER = (
    "from tui_course.training.lifeline import hold_on_to_parent\n"
    "hold_on_to_parent()\n"
    "import time; time.sleep(30)\n"
)

PARENT = """
import os, signal, subprocess, sys, time
env = dict(os.environ, ATTN_TUI_PARENT_PID=str(os.getpid()))
child = subprocess.Popen([sys.executable, "-c", sys.argv[2]], env=env)
print(child.pid, flush=True)
time.sleep(float(sys.argv[1]))
os.kill(os.getpid(), signal.SIGKILL)
"""

ORPHANING = """
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come back to us
parent = subprocess.Popen([sys.executable, "-c", *sys.argv[1:]], stdout=subprocess.PIPE, text=True)
child = int(parent.stdout.readline())
parent.wait()
died = time.monotonic()
_, status = os.waitpid(child, 0)
print(status, time.monotonic() - died)
"""


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.5])
def test_a_parent_killed_at_any_moment_takes_the_child(delay: float) -> None:
    result = run_python(ORPHANING, PARENT, str(delay), SLEEPER)
    assert result.returncode == 0, result.stderr
    status, _ = result.stdout.split()
    code = int(status)
    # Left alone the child would sleep 30 s and exit 0: either ending is the lifeline's.
    killed = os.WIFSIGNALED(code) and os.WTERMSIG(code) == signal.SIGTERM
    orphaned = os.WIFEXITED(code) and os.WEXITSTATUS(code) == ORPHANED_EXIT
    assert killed or orphaned, code
