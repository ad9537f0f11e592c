"""Run a lesson's listing: NumPy listings in the code sandbox, Keras ones in a child process.

A NumPy listing is student-editable code, so it runs exactly where a code check runs
(tui_course.sandbox: bwrap, or rlimits alone, said in one line). A Keras listing needs
the train extra's packages, which the sandbox does not hold; it runs in a child of this
environment (`python -m tui_course.listings.child`) with the training child's caps
(threads, niceness, a wall clock on its whole group, capped output). Because that child
is not sandboxed, an edited Keras listing runs only where the student has a shell anyway
(see tui_course.runtime.shell_access); the shipped listing is course content, trusted like it.
No Textual here: the lesson view calls run_listing from a worker thread.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from tui_course.content.segments import ListingRunner

KERAS_INSTALL = "pip install 'attn-tui[train]'"
KERAS_MISSING = f"Keras is not installed here, so this listing cannot run: {KERAS_INSTALL}"
# A listing has no function to call: the sandbox's harness runs one that does nothing
# once the listing's own lines have run (appended at the end: line numbers stay).
_DONE_ENTRY = "_attn_tui_listing_done"
_DONE_CODE = f"\n\ndef {_DONE_ENTRY}():\n    return 0\n"
KERAS_WALL_SECONDS = 180.0  # TensorFlow's import alone takes 10-30 s on a busy server
KERAS_CPU_SECONDS = 300
_CHILD = (sys.executable, "-I", "-m", "tui_course.listings.child")
OUTPUT_BYTES = 64 * 1024  # stdout and stderr each, as the sandbox caps them


class ListingOutcome(StrEnum):
    RAN = "ran"
    ERROR = "error"  # an exception: type, message, the listing's own line
    SYNTAX_ERROR = "syntax error"
    EXITED = "exited"  # sys.exit() before the end
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"
    CRASHED = "crashed"  # killed by a signal
    UNAVAILABLE = "cannot run"


@dataclass(frozen=True)
class ListingResult:
    outcome: ListingOutcome
    stdout: str = ""
    stderr: str = ""
    stdout_cut: bool = False
    stderr_cut: bool = False
    seconds: float = 0.0
    detail: str = ""  # one line about the outcome (the error and its line, the limit)
    where: str = ""  # how it ran: "sandbox: bwrap", "limits only", "Keras child"


def keras_missing() -> str | None:
    """The one line to show instead of running a Keras listing, or None when it can run.
    find_spec looks for the packages without importing them (never Keras in the TUI)."""
    for name in ("keras", "tensorflow"):
        if importlib.util.find_spec(name) is None:
            return KERAS_MISSING
    return None


def run_listing(
    code: str, runner: ListingRunner, wall_seconds: float | None = None
) -> ListingResult:
    """Run the listing to its end or its limit; blocking (call it from a worker thread)."""
    if runner is ListingRunner.KERAS:
        missing = keras_missing()
        if missing is not None:
            return ListingResult(ListingOutcome.UNAVAILABLE, detail=missing)
        return _run_keras(code, wall_seconds or KERAS_WALL_SECONDS)
    return _run_sandboxed(code, wall_seconds)


def _run_sandboxed(code: str, wall_seconds: float | None) -> ListingResult:
    from tui_course.codecheck.service import refusal
    from tui_course.sandbox import Limits, Worker

    refused = refusal()  # a class server runs student code under bwrap only
    if refused is not None:
        return ListingResult(ListingOutcome.UNAVAILABLE, detail=refused)
    limits = Limits() if wall_seconds is None else Limits(wall_seconds=wall_seconds)
    result = Worker(limits).run(code + _DONE_CODE, _DONE_ENTRY, ())
    where = f"sandbox: {result.level}"
    ran = ListingResult(
        ListingOutcome.RAN,
        stdout=result.stdout,
        stderr=result.stderr,
        stdout_cut=result.stdout_truncated,
        stderr_cut=result.stderr_truncated,
        seconds=result.seconds,
        where=where,
    )
    detail = result.detail
    status = result.status
    if status == "ok":
        return ran
    if status == "syntax_error":
        line = f"line {detail.get('line')}: " if detail.get("line") else ""
        message = f"{line}{detail.get('message', 'invalid syntax')}"
        return replace(ran, outcome=ListingOutcome.SYNTAX_ERROR, detail=message)
    if status == "exception":
        frames = detail.get("frames") or []
        where_line = f" (line {frames[-1][0]})" if frames else ""
        message = f"{detail.get('type', 'Exception')}: {detail.get('message', '')}{where_line}"
        return replace(ran, outcome=ListingOutcome.ERROR, detail=message)
    if status == "exit":
        message = f"sys.exit({detail.get('code')}) before the end"
        return replace(ran, outcome=ListingOutcome.EXITED, detail=message)
    if status == "time_limit":
        message = (
            f"stopped after {limits.wall_seconds:g} s (wall clock) or {limits.cpu_seconds} s of CPU"
        )
        return replace(ran, outcome=ListingOutcome.TIME_LIMIT, detail=message)
    if status == "memory_limit":
        message = f"more than {limits.memory_bytes // (1024 * 1024)} MB"
        return replace(ran, outcome=ListingOutcome.MEMORY_LIMIT, detail=message)
    if status == "crashed":
        sig = result.signal
        message = (
            f"killed by {_signal_name(sig)}" if sig else f"exit status {detail.get('exit_status')}"
        )
        return replace(ran, outcome=ListingOutcome.CRASHED, detail=message)
    message = str(detail.get("message") or status)
    return replace(ran, outcome=ListingOutcome.UNAVAILABLE, detail=message)


def _run_keras(code: str, wall_seconds: float) -> ListingResult:
    """A child of this interpreter runs the listing file; its whole group dies at the limit."""
    with tempfile.TemporaryDirectory(prefix="attn-tui-listing-") as folder:
        script = Path(folder) / "listing.py"
        script.write_text(code, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": folder,
            "LANG": "C.UTF-8",
            "KERAS_BACKEND": "tensorflow",
            "TF_CPP_MIN_LOG_LEVEL": "3",
            "PYTHONIOENCODING": "utf-8:replace",
            "PYTHONDONTWRITEBYTECODE": "1",
            "CUDA_VISIBLE_DEVICES": "",
        }
        from tui_course.training.lifeline import PARENT_PID_ENV

        env[PARENT_PID_ENV] = str(os.getpid())
        started = time.monotonic()
        process = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-m",
                "tui_course.listings.child",
                str(script),
                str(KERAS_CPU_SECONDS),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=folder,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        stdout, stderr, timed_out = _collect(process, started + wall_seconds)
        seconds = time.monotonic() - started
    out, out_cut = stdout
    err, err_cut = stderr
    ran = ListingResult(
        ListingOutcome.RAN,
        stdout=out,
        stderr=_last_error_lines(err),
        stdout_cut=out_cut,
        stderr_cut=err_cut,
        seconds=seconds,
        where="Keras child",
    )
    status = process.returncode
    if timed_out:
        return replace(
            ran, outcome=ListingOutcome.TIME_LIMIT, detail=f"stopped after {wall_seconds:g} s"
        )
    if status == 0:
        return ran
    if status < 0:
        return replace(
            ran, outcome=ListingOutcome.CRASHED, detail=f"killed by {_signal_name(-status)}"
        )
    last = err.strip().splitlines()[-1] if err.strip() else f"exit status {status}"
    return replace(ran, outcome=ListingOutcome.ERROR, detail=last[:300])


Captured = tuple[str, bool]  # the text, and whether it was cut at OUTPUT_BYTES


def _collect(process: subprocess.Popen[bytes], deadline: float) -> tuple[Captured, Captured, bool]:
    """Read both pipes until they close or the deadline passes; kill the group either way."""
    assert process.stdout is not None and process.stderr is not None
    fds = (process.stdout.fileno(), process.stderr.fileno())
    buffers = {fd: bytearray() for fd in fds}
    cut = dict.fromkeys(fds, False)
    selector = selectors.DefaultSelector()
    for fd in fds:
        selector.register(fd, selectors.EVENT_READ)
    timed_out = False
    open_streams = len(fds)
    while open_streams:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in selector.select(left):
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                selector.unregister(key.fd)
                open_streams -= 1
                continue
            room = OUTPUT_BYTES - len(buffers[key.fd])
            buffers[key.fd] += chunk[: max(room, 0)]
            cut[key.fd] = cut[key.fd] or len(chunk) > room
    selector.close()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    process.stderr.close()
    out, err = ((buffers[fd].decode("utf-8", "replace"), cut[fd]) for fd in fds)
    return out, err, timed_out


def _last_error_lines(text: str, keep: int = 40) -> str:
    """TensorFlow's own warnings fill stderr: the last lines hold the listing's traceback."""
    lines = text.rstrip("\n").splitlines()
    return "\n".join(lines[-keep:])


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
