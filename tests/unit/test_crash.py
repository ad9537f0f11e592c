"""An unexpected error ends the app with one short message, status 70 and a private log."""

from __future__ import annotations

import os
import pty
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.runtime.crash import EXIT_SOFTWARE, KEEP_LOGS, report_crash, write_crash_log

BOOM = "boom \x1b]0;retitled\x07 [/]"


def run_in_pty(args: list[str], env: dict[str, str], timeout: float = 60) -> tuple[int, bytes]:
    """Run a command on a pseudo-terminal (the app needs one); its status and all output."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO, close_fds=True
    )
    os.close(slave)
    output = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        elif process.poll() is not None:
            break
    os.close(master)
    try:
        return process.wait(timeout=10), output
    finally:
        if process.poll() is None:
            process.kill()


def test_a_crash_in_the_app_exits_70_with_one_message_and_a_0600_log(tmp_path: Path) -> None:
    data = tmp_path / "data"
    script = (
        "import sys\n"
        "import tui_course.ui.app as app_module\n"
        "def boom(self):\n"
        f"    raise RuntimeError({BOOM!r})\n"
        "app_module.CourseApp.action_help = boom\n"
        "from tui_course.cli import main\n"
        "sys.exit(main(['--data-dir', sys.argv[1]]))\n"
    )
    env = dict(os.environ, TEXTUAL_PRESS="f1", TERM="xterm-256color", PYTHONPATH=str(REPO))
    status, output = run_in_pty([sys.executable, "-c", script, str(data)], env)
    assert status == EXIT_SOFTWARE
    after_exit = output.rsplit(b"\x1b[?1006l", 1)[-1].decode()  # what follows the app's screen
    assert "attn-tui stopped after an unexpected error (RuntimeError: boom ]0;retitled [/])" in (
        after_exit
    )
    assert "Traceback" not in after_exit and "\x1b" not in after_exit
    (log,) = data.glob("crash-*.log")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert f"Details are in {log}" in after_exit
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "in boom" in text
    assert "RuntimeError: boom ]0;retitled [/]" in text and "\x1b" not in text


def test_report_crash_keeps_a_bounded_number_of_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        raise ValueError("bad\nthing")
    except ValueError as error:
        failure = error
    for index in range(KEEP_LOGS + 5):
        (tmp_path / f"crash-2000010{index:02d}-000000-1.log").write_text("old")
    assert report_crash(tmp_path, failure) == EXIT_SOFTWARE
    message = capsys.readouterr().err
    assert "(ValueError: bad thing)" in message and "Traceback" not in message
    assert len(list(tmp_path.glob("crash-*.log"))) == KEEP_LOGS


def test_a_crash_log_is_never_written_through_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui_course.runtime.crash.time.strftime", lambda *_: "20000101-000000")
    target = tmp_path / "victim"
    target.write_text("keep me")
    os.symlink(target, tmp_path / f"crash-20000101-000000-{os.getpid()}.log")
    with pytest.raises(FileExistsError):
        write_crash_log(tmp_path, RuntimeError("x"))
    assert target.read_text() == "keep me"


def test_when_no_log_can_be_written_the_traceback_goes_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    try:
        raise KeyError("k")
    except KeyError as error:
        assert report_crash(blocked / "data", error) == EXIT_SOFTWARE
    message = capsys.readouterr().err
    assert "could not be saved" in message and "Traceback (most recent call last)" in message
