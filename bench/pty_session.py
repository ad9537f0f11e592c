"""Run a terminal app under a pseudo-terminal, as a student's ssh session would.

Used by bench/startup.py and bench/idle.py: the app draws to a real pty (not
Textual's headless driver), so start-up, bytes written and CPU are what a
terminal would see. Linux only (/proc for CPU and memory).
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence

# CSI, OSC, DCS and the two-byte escapes: what is left is the text on screen.
_ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1bP.*?\x1b\\"  # DCS
    rb"|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def plain(output: bytes) -> str:
    return _ESCAPES.sub(b"", output).decode("utf-8", "replace")


class PtySession:
    """One child process on its own pty of a fixed size; the parent reads all it writes."""

    def __init__(
        self,
        argv: Sequence[str],
        size: tuple[int, int] = (80, 24),
        env: Mapping[str, str] | None = None,
    ) -> None:
        columns, rows = size
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        child_env = dict(os.environ if env is None else env)
        child_env.setdefault("TERM", "xterm-256color")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=child_env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.output = bytearray()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self, timeout: float) -> int:
        """Read what is waiting (up to `timeout` seconds for the first byte); bytes read."""
        ready, _, _ = select.select([self.master], [], [], max(timeout, 0))
        if not ready:
            return 0
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return 0
        self.output.extend(chunk)
        return len(chunk)

    def wait_for(self, text: str, timeout: float = 30.0) -> float:
        """Seconds from launch until `text` is on the terminal; raises TimeoutError."""
        deadline = time.perf_counter() + timeout
        while text not in plain(bytes(self.output)):
            left = deadline - time.perf_counter()
            if left <= 0 or (self.process.poll() is not None and not self._read(0)):
                tail = plain(bytes(self.output))[-400:]
                raise TimeoutError(f"{text!r} never appeared; the terminal ends with {tail!r}")
            self._read(min(left, 0.05))
        return time.perf_counter() - self.started

    def drain(self, seconds: float) -> int:
        """Read for `seconds`; the number of bytes the app wrote meanwhile."""
        total = 0
        deadline = time.perf_counter() + seconds
        while (left := deadline - time.perf_counter()) > 0:
            total += self._read(left)
        return total

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def cpu_seconds(self) -> float:
        """User + system CPU time of the child so far."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def rss_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError(f"no VmRSS for {self.pid}")

    def loaded(self, prefixes: Sequence[str]) -> list[str]:
        """Shared objects of these packages mapped into the child (numpy, tensorflow...)."""
        with open(f"/proc/{self.pid}/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/" in line}
        return sorted(
            name for name in prefixes if any(f"/site-packages/{name}/" in path for path in paths)
        )

    def close(self) -> None:
        """ctrl+q, then SIGTERM, then SIGKILL: this child only."""
        if self.process.poll() is None:
            try:
                self.send("\x11")
                deadline = time.perf_counter() + 5
                while self.process.poll() is None and time.perf_counter() < deadline:
                    self._read(0.05)
            except OSError:
                pass
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.master)

    def __enter__(self) -> PtySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
