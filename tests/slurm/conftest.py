"""A real one-node Slurm cluster for the session (tests/slurm/cluster.py), and real users.

Skipped, saying why, without root or without Debian's slurm-wlm and munge. Each test
gets the cluster back as it found it: node resumed, controller up, queue empty.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.classroom.conftest import STUDENTS, accounts, shared  # noqa: F401 (fixtures)
from tests.slurm.cluster import NODE, PARTITION, Cluster, missing_reason

REPO = Path(__file__).resolve().parents[2]
WAIT = 360.0  # seconds a condition may take on a busy 2-core machine (TensorFlow loads;
# a loaded suite run with other jobs beside it saw a one-epoch Slurm run pass 120 s)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    reason = missing_reason()
    if reason is not None:
        pytest.skip(f"no Slurm cluster: {reason}")
    if (os.cpu_count() or 1) < 2 or machine_memory_mb() < 4000:
        pytest.skip("needs 2 cores and 4 GB: two students train at once on the node")
    root = Path(tempfile.mkdtemp(prefix="attn-slurm-test-"))
    made = Cluster(root, cpus=2, memory_mb=3000)
    before = os.environ.get("SLURM_CONF")
    try:
        made.start()
        os.environ["SLURM_CONF"] = str(made.conf)
        yield made
    finally:
        made.stop()
        if before is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = before
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def slurm(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster, left as found: controller up, node resumed, no jobs."""
    yield cluster
    cluster.start_controller()
    cluster.run("scancel", "--partition", PARTITION)
    cluster.run("scontrol", "update", f"nodename={NODE}", "state=resume")
    cluster.wait_until_idle()
    wait_for(lambda: not cluster.run("squeue", "-h").stdout.strip(), "the queue to empty")


def machine_memory_mb() -> int:
    """What slurmd will count: a node configured with more is drained as invalid."""
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 0


def wait_for(condition: Callable[[], object], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def user_python(user: str) -> str:
    """An interpreter `user` can run with this checkout and keras importable, or a skip."""
    probe = "import importlib.util as u, tui_course; assert u.find_spec('keras')"
    try:
        runs = (
            subprocess.run(
                [sys.executable, "-c", probe],
                user=user,
                group=pwd.getpwnam(user).pw_gid,
                extra_groups=[],
                capture_output=True,
                cwd="/",
                env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
            ).returncode
            == 0
        )
    except OSError:  # exec itself refused: the interpreter is behind a private folder
        runs = False
    if not runs:
        pytest.skip(
            f"the test users cannot run {sys.executable} with keras (it lives in a private"
            " home, or lacks the train extra); run tests/slurm from a venv they can read, as"
            " .ci/run does with .venv-plain-user"
        )
    return sys.executable


# Ctrl-C's signal at its default, then attn-tui in the same process: a suite started in the
# background (`cmd &` without job control, nohup) inherits SIGINT ignored, and Python keeps
# an ignored SIGINT ignored, so a test's SIGINT would reach an app that cannot hear it.
DEFAULT_SIGINT_THEN_ATTN_TUI = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'tui_course', *sys.argv[1:]])"
)


class Command:
    """attn-tui as a user, its output lines collected as they come."""

    def __init__(self, args: list[str], user: str | None, env: dict[str, str]) -> None:
        account = pwd.getpwnam(user) if user is not None else None
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-c", DEFAULT_SIGINT_THEN_ATTN_TUI, *args],
            user=None if account is None else account.pw_uid,
            group=None if account is None else account.pw_gid,
            extra_groups=None if account is None else [],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd="/",
            env=env,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.lines)),
            threading.Thread(target=self._read, args=(self.process.stderr, self.errors)),
        ]
        for reader in self.readers:
            reader.daemon = True
            reader.start()

    @staticmethod
    def _read(stream: object, into: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line.rstrip("\n"))

    def said(self, text: str) -> bool:
        return any(text in line for line in (*self.lines, *self.errors))

    def finish(self, timeout: float = WAIT) -> int:
        code = self.process.wait(timeout)
        for reader in self.readers:
            reader.join(10)
        return code


def user_env(home: Path, site: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO),
        "ATTN_TUI_CONFIG": str(site),
        "SLURM_CONF": os.environ["SLURM_CONF"],
    }


def make_home(base: Path, user: str) -> Path:
    home = base / user
    home.mkdir(exist_ok=True)
    os.chown(home, pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid)
    return home


__all__ = ["STUDENTS", "WAIT", "Command", "make_home", "user_env", "user_python", "wait_for"]
