"""No terminal, no TUI; and whatever the mode, the app ends when its terminal goes away.

Each test starts the real entry point (`python -m tui_course`) with pipes or on a
pseudo-terminal, waits for a condition (never a fixed sleep) and times only the one
thing the issue bounds: from the hangup or signal to the process's end (1 s).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO
from tui_course.plain.start import NO_TERMINAL, NOT_ALLOWED_HELP, sent_command
from tui_course.progress.store import ProgressStore

COURSE = FIXTURES / "plain_course"
# The second the issue allows from a hangup or SIGTERM to the end is measured by
# bench/hangup.py; these tests check that the end comes by itself, with the right status.
GENEROUS = 60.0  # how long a test waits for anything at all

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals")


def environment(data: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("SSH_ORIGINAL_COMMAND", "COLUMNS", "LINES")
    }
    # the fixture course as the site's own: its progress is the data folder's, not practice
    env.update(ATTN_TUI_CONTENT_DIR=str(COURSE))
    env.update(ATTN_TUI_DATA_DIR=str(data), ATTN_TUI_CONFIG=os.devnull, LANG="C.UTF-8")
    env.update(extra)
    return env


def entry(*args: str) -> list[str]:
    return [sys.executable, "-m", "tui_course", *args]


@pytest.mark.parametrize("stdin", ["devnull", "closed pipe"])
def test_no_terminal_and_nothing_to_read_says_how_and_exits_2(tmp_path: Path, stdin: str) -> None:
    if stdin == "devnull":
        source = subprocess.DEVNULL
    else:  # `printf '' | attn-tui`: the writer has gone before attn-tui looks
        source, writer = os.pipe()
        os.close(writer)
    process = subprocess.Popen(
        entry(),
        stdin=source,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(tmp_path, TERM="xterm-256color"),
        cwd=REPO,
    )
    if stdin != "devnull":
        os.close(source)
    out, err = process.communicate(timeout=GENEROUS)
    assert process.returncode == 2
    assert err.decode().strip() == NO_TERMINAL
    assert out == b""  # not one escape code into the pipe
    assert "ssh -t" in NO_TERMINAL and len(NO_TERMINAL) <= 80


def test_piped_input_runs_plain_mode(tmp_path: Path) -> None:
    result = subprocess.run(
        entry(),
        input=b"\nl\nq\n",
        capture_output=True,
        env=environment(tmp_path, TERM="xterm-256color"),
        cwd=REPO,
        timeout=GENEROUS,
    )
    text = result.stdout.decode()
    assert result.returncode == 0, result.stderr
    assert "plain mode" in text and "2. Quiz: Small check, not started" in text
    assert "\x1b" not in text
    assert all(len(line) <= 80 for line in text.split("\n"))


def test_commands_sent_under_force_command(tmp_path: Path) -> None:
    """ssh student@lab 'scp ...' is told the command is not allowed (issue 29: it was told
    "no terminal: connect with ssh -t"); ssh student@lab attn-tui submit runs submit."""
    for sent in ("scp -t /tmp", "sh -c id", "attn-tui reset --all --yes"):
        probe = subprocess.run(
            entry(),
            stdin=subprocess.PIPE,
            capture_output=True,
            env=environment(tmp_path, SSH_ORIGINAL_COMMAND=sent),
            cwd=REPO,
            timeout=GENEROUS,
        )
        assert probe.returncode == 2 and probe.stdout == b""
        said = probe.stderr.decode().splitlines()
        assert said == [f"attn-tui: not allowed here: {sent}", NOT_ALLOWED_HELP]
        assert "no terminal" not in probe.stderr.decode()
    submit = subprocess.run(
        [sys.executable, "-m", "tui_course"],
        stdin=subprocess.PIPE,
        capture_output=True,
        env=environment(tmp_path, SSH_ORIGINAL_COMMAND="attn-tui submit"),
        cwd=REPO,
        timeout=GENEROUS,
    )
    # the site config here names no class folder: submit itself says so
    assert submit.returncode == 1
    assert "submit: no class folder is set up" in submit.stderr.decode()
    assert sent_command({"SSH_ORIGINAL_COMMAND": "attn-tui submit; rm -rf ~"}) is None
    assert sent_command({"SSH_ORIGINAL_COMMAND": "attn-tui reset --all --yes"}) is None
    assert sent_command({"SSH_ORIGINAL_COMMAND": "attn-tui --plain --color"}) == [
        "--plain",
        "--color",
    ]
    assert sent_command({"SSH_ORIGINAL_COMMAND": "/opt/attn-tui/bin/attn-tui"}) == []
    assert sent_command({}) is None


def test_a_refused_command_on_a_terminal_is_refused_too(tmp_path: Path) -> None:
    """`ssh -t lab 'sh -c id'`: a terminal does not make the command allowed; the command
    is said back as text (its escape byte dropped)."""
    hostile = "sh -c 'id; printf \x1b[2J'"
    process = Pty(entry(), environment(tmp_path, TERM="xterm", SSH_ORIGINAL_COMMAND=hostile))
    try:
        assert process.process.wait(GENEROUS) == 2
        deadline = time.monotonic() + GENEROUS
        while NOT_ALLOWED_HELP.encode() not in process.output:  # the drain thread reads on
            assert time.monotonic() < deadline, process.output
            time.sleep(0.02)
    finally:
        process.stop()
    said = process.output.decode(errors="replace").replace("\r\n", "\n").splitlines()
    assert said == ["attn-tui: not allowed here: sh -c 'id; printf [2J'", NOT_ALLOWED_HELP]


class Pty:
    """A process on a pseudo-terminal (its controlling terminal, as under sshd), with its
    output drained in a thread so it never blocks on a full terminal."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x18\x00\x50\x00\x00\x00\x00\x00")  # 24x80

        def controlling_terminal() -> None:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=REPO,
            start_new_session=True,
            preexec_fn=controlling_terminal,
        )
        os.close(slave)
        self.output = b""
        self._lock = threading.Lock()
        self.closed = False
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while not self.closed:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if ready:
                    chunk = os.read(self.master, 65536)
                    if not chunk:
                        return
                    with self._lock:
                        self.output += chunk
            except OSError:
                return

    def wait_for(self, text: bytes) -> None:
        deadline = time.monotonic() + GENEROUS
        while time.monotonic() < deadline:
            with self._lock:
                if text in self.output:
                    return
            assert self.process.poll() is None, self.output[-2000:]
            time.sleep(0.02)
        raise AssertionError(f"{text!r} never showed: {self.output[-2000:]!r}")

    def write(self, text: bytes) -> None:
        os.write(self.master, text)

    def close_terminal(self) -> None:
        self.closed = True
        self._reader.join()
        os.close(self.master)

    def seconds_to_exit(self) -> float:
        start = time.monotonic()
        try:
            self.process.wait(GENEROUS)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        return time.monotonic() - start

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if not self.closed:
            self.close_terminal()


@pytest.fixture
def on_pty(tmp_path: Path):  # type: ignore[no-untyped-def]
    started: list[Pty] = []

    def start(*args: str, term: str = "xterm-256color") -> Pty:
        terminal = Pty(entry(*args), environment(tmp_path / "data", TERM=term))
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.stop()


def test_an_orphaned_tui_ends_when_its_terminal_closes(on_pty, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    terminal = on_pty()
    terminal.wait_for(b"Words that attend")  # the app is up, its first lesson open
    terminal.close_terminal()  # sshd gone: the pty's other end closes
    terminal.seconds_to_exit()
    assert terminal.process.returncode == 129  # ended as a hangup, by the app itself
    with ProgressStore(tmp_path / "data") as store:
        assert store.get_setting("last_opened") == "attend"


def test_sigterm_ends_the_tui_by_itself(on_pty) -> None:  # type: ignore[no-untyped-def]
    terminal = on_pty()
    terminal.wait_for(b"Words that attend")
    terminal.process.send_signal(signal.SIGTERM)
    terminal.seconds_to_exit()
    assert terminal.process.returncode == 128 + signal.SIGTERM


def test_dumb_terminal_gets_plain_mode(on_pty) -> None:  # type: ignore[no-untyped-def]
    terminal = on_pty(term="dumb")
    terminal.wait_for(b"plain mode")
    terminal.wait_for(b"Enter: more")
    terminal.write(b"q\n")
    terminal.seconds_to_exit()
    assert terminal.process.returncode == 0
    assert b"\x1b" not in terminal.output
    assert b"Bye. Your progress is saved." in terminal.output


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "terminal closed"])
def test_plain_mode_ends_on_hangup_and_sigterm(on_pty, tmp_path: Path, how: str) -> None:  # type: ignore[no-untyped-def]
    terminal = on_pty("--plain", "--open", "small")
    terminal.wait_for(b"Enter: start the quiz")
    terminal.write(b"\n")
    terminal.wait_for(b"tries left>")
    terminal.write(b"v\n")  # show the answer: stored (as revealed) before it is said
    terminal.wait_for(b"Answer shown (recorded as revealed).")
    if how == "terminal closed":
        terminal.close_terminal()
        expected = {129, 0}  # SIGHUP from the kernel, or EIO / end of input first
    else:
        terminal.process.send_signal(getattr(signal, how))
        expected = {128 + getattr(signal, how)}
    terminal.seconds_to_exit()
    assert terminal.process.returncode in expected
    with ProgressStore(tmp_path / "data") as store:
        rows = store.quiz_rows("small")
    assert [(r.question_index, r.verdict, r.revealed) for r in rows] == [(1, "revealed", True)]
