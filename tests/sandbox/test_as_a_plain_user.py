"""The sandbox's attacks again, started by an unprivileged account instead of root.

CI runs as root, where student code is made `nobody` by the harness; a student's own
`attn-tui check` runs as the student, where bwrap's user namespace does the work. This
runs test_walls.py and test_attacks.py as `nobody` in a child pytest, so both paths are
attacked in one suite run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.sandbox.conftest import REPO

pytestmark = pytest.mark.xdist_group("plain-user")


def _as_nobody() -> dict[str, int]:
    import pwd

    entry = pwd.getpwnam("nobody")
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _nobody_can_run_the_suite(env: dict[str, str]) -> str | None:
    """Why nobody cannot run it here, or None."""
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import tui_course, numpy, pytest"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            **_as_nobody(),
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"cannot start the interpreter as nobody: {error}"
    if probe.returncode != 0:
        lines = probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"]
        return f"nobody cannot read this checkout or its interpreter: {lines[-1][:200]}"
    return None


@pytest.mark.skipif(os.geteuid() != 0, reason="already a plain user: this suite run is that run")
def test_every_sandbox_attack_holds_when_a_plain_user_starts_the_check() -> None:
    # pytest's own tmp_path lies under root's 0700 folder: nobody needs a place of its own
    place = Path(tempfile.mkdtemp(prefix="attn-tui-plain-user-"))
    try:
        _run_as_nobody(place)
    finally:
        shutil.rmtree(place, ignore_errors=True)


def _run_as_nobody(place: Path) -> None:
    home = place / "home"
    home.mkdir()
    uid, gid = _as_nobody()["user"], _as_nobody()["group"]
    os.chown(place, uid, gid)
    os.chown(home, uid, gid)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ATTN_TUI_DATA_DIR": str(home / "data"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }
    reason = _nobody_can_run_the_suite(env)
    if reason is not None:
        pytest.skip(reason)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--basetemp={place / 'base'}",
            "tests/sandbox/test_walls.py",
            "tests/sandbox/test_attacks.py",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        **_as_nobody(),
    )
    tail = (run.stdout + run.stderr)[-4000:]
    assert run.returncode == 0, tail
    assert " passed" in tail and " failed" not in tail
