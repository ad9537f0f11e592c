"""Start the child, send it one job, collect arrays and capped text, kill what is left.

A Worker is started ahead of time (NumPy already imported, waiting on its request
pipe) so a check costs only the student's own code; it serves one job and is spent.
What comes back is read by sandbox.frames, which trusts none of it: a hostile child
can send nothing but numbers and a little text, and anything else is the "protocol"
outcome.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import selectors
import shutil
import signal
import stat
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tui_course.sandbox.command import (
    WORK_DIR,
    Account,
    ChildCommand,
    bwrap_command,
    harness_args,
    library_open_to_all,
    limits_only_command,
    numpy_dirs,
    sandbox_account,
)
from tui_course.sandbox.frames import CaseResult as CaseResult  # its home before frames
from tui_course.sandbox.frames import (
    FrameReader,
    ProtocolError,
    budget,
    parse,
)
from tui_course.sandbox.level import Level, LevelReport, sandbox_level
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.npy import Packed, as_array, is_array, scalar_frame

_LENGTH = struct.Struct(">I")
START_SECONDS = 30.0  # NumPy's import on a busy lab server; not part of the check's clock
MARK_ENV = "ATTN_TUI_SANDBOX_RUN"
STUDENT_FILE = "student.py"  # the harness's own name for it (harness.STUDENT_FILE)

Arg = Any  # an array (Packed or ndarray), or an int or float passed as a plain number


@dataclass(frozen=True)
class RunResult:
    """The whole run. status: ok (the code loaded and cases ran), syntax_error,
    exception (at load), exit (at load), missing_entry, time_limit, memory_limit,
    crashed, protocol (garbled results), unavailable."""

    status: str
    level: Level
    entries: tuple[tuple[CaseResult, ...], ...] = ()  # per entry asked for, per case
    detail: dict[str, Any] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    seconds: float = 0.0
    signal: int | None = None

    @property
    def cases(self) -> tuple[CaseResult, ...]:
        """The first (for a student's check, the only) entry's results."""
        return self.entries[0] if self.entries else ()


class _Capped:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        if len(chunk) > max(room, 0):
            self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def _encode(arg: Arg) -> tuple[bytes, bool]:
    """An argument's `.npy` bytes, and whether it is a plain number: without NumPy for
    remembered arrays (Packed) and Python numbers."""
    if isinstance(arg, Packed):
        return arg.frame, False
    if type(arg) in (int, float):
        plain = scalar_frame(arg)
        if plain is not None:
            return plain, True
    import numpy as np

    scalar = not isinstance(arg, np.ndarray)
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(arg), allow_pickle=False)
    return buffer.getvalue(), scalar


def _frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


class Worker:
    """One sandboxed child, started now, waiting for one job."""

    def __init__(
        self,
        limits: Limits | None = None,
        report: LevelReport | None = None,
        hidden: Iterable[Path] = (),
    ) -> None:
        self.limits = limits or Limits()
        self.report = report or sandbox_level()
        self.level = self.report.level
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._used = False
        self._private: Path | None = None
        self._mark = os.urandom(16).hex()
        self.process: subprocess.Popen[bytes] | None = None
        self._request: int | None = None
        self._result: int | None = None
        self._info: int | None = None  # bwrap writes the namespace's pid 1 here
        self._lifeline: int | None = None  # limits only: closing it ends the child
        self._inner_pid: int | None = None
        if self.level is Level.NONE:
            return
        self.account = sandbox_account()
        request_read, self._request = os.pipe()
        self._result, result_write = os.pipe()
        child_ends = [request_read, result_write]
        try:
            if self.level is Level.BWRAP:
                self._info, info_write = os.pipe()
                child_ends.append(info_write)
                command = self._bwrap_command(request_read, result_write, info_write, hidden)
                _end_stranded_sandboxes_once(command.argv[0])
                # bwrap clears the environment it gives the harness (--clearenv); the mark
                # stays on bwrap's own processes, for end_stranded_sandboxes
                env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), MARK_ENV: self._mark}
            else:
                lifeline_read, self._lifeline = os.pipe()
                child_ends.append(lifeline_read)
                command = self._limits_command(request_read, result_write, lifeline_read)
                env = dict(command.env, **{MARK_ENV: self._mark})
            self.process = subprocess.Popen(
                command.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=tuple(child_ends),
                env=env,
                cwd=command.cwd or "/",
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            for fd in (self._request, self._result, self._info, self._lifeline):
                if fd is not None:
                    os.close(fd)
            self._request = self._result = self._info = self._lifeline = None
            self.process = None
            self._cleanup_private()
            return
        finally:
            for fd in child_ends:
                os.close(fd)

    def _bwrap_command(
        self, request_fd: int, result_fd: int, info_fd: int, hidden: Iterable[Path]
    ) -> ChildCommand:
        assert self.report.bwrap is not None
        as_root = self.account.dropped  # the harness becomes nobody after importing NumPy
        drop_to = self.account if as_root else None
        preload = as_root and not library_open_to_all()
        args = harness_args(
            request_fd, result_fd, WORK_DIR, self.limits, self.account, drop_to, preload=preload
        )
        return bwrap_command(self.report.bwrap, args, self.limits, hidden, info_fd, as_root)

    def _limits_command(self, request_fd: int, result_fd: int, lifeline_fd: int) -> ChildCommand:
        _remove_stale_private_dirs_once()
        self._private = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-"))
        work = self._private / "work"
        site = self._private / "site"
        work.mkdir(mode=0o700)
        site.mkdir()
        # made here: under Landlock the student's side may write this one file, create none
        (work / STUDENT_FILE).touch(mode=0o600)
        for folder in numpy_dirs():
            (site / folder.name).symlink_to(folder)
        drop_to: Account | None = None
        if self.account.dropped:  # the harness imports NumPy as root, then becomes nobody
            drop_to = self.account
            os.chown(work, self.account.uid, self.account.gid)
            os.chown(work / STUDENT_FILE, self.account.uid, self.account.gid)
            self._private.chmod(0o711)
        args = harness_args(
            request_fd,
            result_fd,
            str(work),
            self.limits,
            self.account,
            drop_to,
            lifeline_fd,
            readable=[site, *numpy_dirs()],
            preload=drop_to is not None,  # no namespaces: root's home stays closed to nobody
        )
        return limits_only_command(args, work, site)

    def run(
        self,
        code: str,
        entry: str | Sequence[str],
        cases: Sequence[Sequence[Arg]],
        on_wait: Callable[[], None] | None = None,
    ) -> RunResult:
        """Send the job, wait at most the wall clock, and always leave nothing running.
        `on_wait` is called once, when the job is ready and this thread starts waiting for
        the child: the caller's own work that can run beside it (it must not block)."""
        with self._lock:
            if self._used:
                raise RuntimeError("a Worker runs one job; start another")
            self._used = True
        if self.process is None:
            detail = self.report.detail if self.level is Level.NONE else "the child cannot start"
            return RunResult("unavailable", self.level, detail={"message": detail})
        try:
            entries = [entry] if isinstance(entry, str) else list(entry)
            return self._run(code, entries, cases, on_wait)
        finally:
            self.close()

    def _run(
        self,
        code: str,
        entries: list[str],
        cases: Sequence[Sequence[Arg]],
        on_wait: Callable[[], None] | None,
    ) -> RunResult:
        assert self.process is not None and self.process.stdout and self.process.stderr
        assert self._request is not None and self._result is not None
        request = self._request
        limits = self.limits
        stdout, stderr = _Capped(limits.output_bytes), _Capped(limits.output_bytes)
        encoded = [[_encode(arg) for arg in case] for case in cases]
        sent = [[payload for payload, scalar in case if not scalar] for case in encoded]
        array_bytes = max([limits.result_bytes, *(len(p) for arrays in sent for p in arrays)])
        input_bytes = sum(len(p) for arrays in sent for p in arrays)
        most_inputs = max((len(arrays) for arrays in sent), default=0)
        frames = FrameReader(
            budget(len(entries), len(cases), array_bytes, input_bytes, most_inputs)
        )
        header = {
            "entries": entries,
            "code": code,
            "cases": [[scalar for _, scalar in case] for case in encoded],
            "max_result_bytes": limits.result_bytes,
        }
        job = bytearray(_frame(json.dumps(header).encode()))
        for case in encoded:
            for payload, _ in case:
                job += _frame(payload)
        if on_wait is not None:
            on_wait()
        selector = selectors.DefaultSelector()
        selector.register(self._result, selectors.EVENT_READ, "result")
        selector.register(self.process.stdout, selectors.EVENT_READ, stdout)
        selector.register(self.process.stderr, selectors.EVENT_READ, stderr)
        pending = memoryview(bytes(job))
        ready = done = False
        garbled: str | None = None
        started = time.monotonic()
        deadline = started + START_SECONDS
        open_reads = 3
        while open_reads and not done:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                break
            for key, _ in selector.select(timeout):
                if key.data == "request":
                    try:
                        pending = pending[os.write(request, pending) :]
                    except OSError:  # the child closed its end: it has left
                        pending = pending[len(pending) :]
                    if not pending:
                        selector.unregister(request)
                        os.close(request)
                        self._request = None
                    continue
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_reads -= 1
                    continue
                if key.data != "result":
                    key.data.add(chunk)
                    continue
                try:
                    frames.add(chunk)
                except ProtocolError as error:
                    garbled, done = str(error), True
                    break
                if not ready and frames.ready:  # the check's own clock starts now
                    ready = True
                    started = time.monotonic()
                    deadline = started + limits.wall_seconds
                    os.set_blocking(request, False)
                    selector.register(request, selectors.EVENT_WRITE, "request")
                done = frames.finished()
        if not done and not open_reads:  # every pipe closed: wait for the process itself
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(max(0.0, deadline - time.monotonic()))
        timed_out = not done and time.monotonic() >= deadline
        seconds = time.monotonic() - started
        self._kill()
        returncode = self.process.wait()
        selector.close()
        # whatever is still in the pipes after the kill (never blocking: without namespaces
        # a process we could not kill might still hold a pipe open)
        for stream, capped in ((self.process.stdout, stdout), (self.process.stderr, stderr)):
            _drain(stream.fileno(), capped, limits.output_bytes)
        common: dict[str, Any] = {
            "level": self.level,
            "stdout": stdout.text(),
            "stderr": stderr.text(),
            "stdout_truncated": stdout.truncated,
            "stderr_truncated": stderr.truncated,
            "seconds": seconds,
        }
        if garbled is not None:
            return RunResult("protocol", detail={"message": garbled[:200]}, **common)
        if not ready:  # the sandbox itself never came up: not the student's doing
            reason = stderr.text().strip().splitlines()
            shown = reason[-1][:200] if reason else f"exit status {returncode}"
            message = f"the sandbox did not start: {shown}"
            return RunResult("unavailable", detail={"message": message}, **common)
        try:
            status, detail, results = parse(
                frames.frames, len(entries), len(cases), array_bytes, most_inputs
            )
            results = tuple(_with_mutations(entry, cases) for entry in results)
        except ProtocolError as error:
            return RunResult("protocol", detail={"message": str(error)[:200]}, **common)
        if status == "done":
            return RunResult("ok", entries=results, detail=detail, **common)
        if status in ("syntax_error", "exception", "exit", "missing_entry"):
            return RunResult(status, entries=results, detail=detail, **common)
        if timed_out:
            return RunResult("time_limit", entries=results, detail=detail, **common)
        sig = _signal_of(returncode, self.level)
        if sig in (signal.SIGXCPU, signal.SIGKILL) and _cpu_spent(seconds, limits):
            return RunResult("time_limit", entries=results, detail=detail, signal=sig, **common)
        if any(case.status == "memory" for entry in results for case in entry):
            return RunResult("memory_limit", entries=results, detail=detail, **common)
        if sig is not None:
            return RunResult("crashed", entries=results, detail=detail, signal=sig, **common)
        if "MemoryError" in stderr.text():
            return RunResult("memory_limit", entries=results, detail=detail, **common)
        detail = dict(detail, exit_status=returncode)
        return RunResult("crashed", entries=results, detail=detail, **common)

    def _kill(self) -> None:
        """End everything the check started: bwrap's namespace as a whole (its pid 1 killed
        from outside takes every process inside with it), or, without bwrap, the harness
        through its lifeline and anything carrying its mark."""
        if self.process is not None and self.process.poll() is None:
            inner = self._namespace_pid()
            if inner is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(inner, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        if self.level is Level.LIMITS:
            kill_marked(self._mark)  # a setsid daemon left the group; its environment did not

    def _namespace_pid(self) -> int | None:
        """The pid (outside) of the namespace's pid 1, from bwrap's info pipe; only a child
        of our own bwrap is believed."""
        if self._inner_pid is None and self._info is not None and self.process is not None:
            self._inner_pid = read_namespace_pid(self._info, self.process.pid)
        return self._inner_pid

    def close(self) -> None:
        """Kill the child (if still there), close the pipes, remove its folder."""
        self._kill()
        if self.process is not None:
            self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
        for fd in (self._request, self._result, self._info):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._request = self._result = self._info = None
        self._cleanup_private()

    def _cleanup_private(self) -> None:
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None


PRIVATE_PREFIX = "attn-tui-code-"
_PRIVATE_NAME = re.compile(re.escape(PRIVATE_PREFIX) + r"(\d+)-[A-Za-z0-9_]+")


def remove_stale_private_dirs(folder: Path | None = None) -> list[Path]:
    """Remove the limits-only level's private folders left by a checker that was killed
    (kill -9 never reaches its cleanup): those of this account whose maker, the pid in the
    name, is gone. Another account's folder, or one whose pid lives, is never touched."""
    folder = Path(folder or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = _PRIVATE_NAME.fullmatch(entry.name)
        if not found:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        if _alive(int(found.group(1))):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


@functools.cache
def _remove_stale_private_dirs_once() -> None:
    """Once a process: a folder is left only by a checker that died, which a look at the
    start finds; a warm checker starts a worker per check and need not look again."""
    remove_stale_private_dirs()


def end_stranded_sandboxes(bwrap: str) -> list[int]:
    """Kill the sandboxes a killed checker left half-started; return their pids.

    bwrap's child waits on an eventfd until its parent has set up the namespace; a parent
    killed in that window (--die-with-parent fires as the app dies during a sandbox start)
    leaves the child asleep for ever, as the new namespace's pid 1, still bwrap, before any
    student code or the harness. Such a child is this account's, runs `bwrap`, carries our
    mark in its environment, is pid 1 of its own namespace, and its parent is not the
    marked bwrap that started it. A live sandbox's child always has that parent."""
    uid = os.getuid()
    try:
        binary = os.path.realpath(bwrap)
        pids = [int(entry.name) for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:
        return []
    ended: list[int] = []
    for pid in pids:
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid or os.readlink(f"/proc/{pid}/exe") != binary:
                continue
            if not _marked(pid):
                continue
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
            namespaces = fields.get("NSpid", "").split()
            if len(namespaces) < 2 or namespaces[-1] != "1" or _marked(int(fields["PPid"])):
                continue
            os.kill(pid, signal.SIGKILL)
            ended.append(pid)
        except (OSError, ValueError, KeyError):
            continue
    return ended


def _marked(pid: int) -> bool:
    """Whether the process carries a sandbox mark in its environment (not readable for
    another account's process: False)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return any(
                item.startswith(f"{MARK_ENV}=".encode()) for item in handle.read().split(b"\0")
            )
    except OSError:
        return False


@functools.cache
def _end_stranded_sandboxes_once(bwrap: str) -> None:
    """Once a process, as the stale folders are: a stranded sandbox is left only by a
    checker that died before this one began."""
    end_stranded_sandboxes(bwrap)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_namespace_pid(info_fd: int, bwrap_pid: int) -> int | None:
    """bwrap's `--info-fd` JSON names the sandbox's pid 1; it is used only if that process
    is still a child of our bwrap (never a pid the child could have made us name)."""
    try:
        os.set_blocking(info_fd, False)
        data = os.read(info_fd, 4096)
        pid = json.loads(data).get("child-pid")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if type(pid) is not int or pid <= 1:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read(4096)
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pid if parent == bwrap_pid else None


def _with_mutations(
    results: tuple[CaseResult, ...], cases: Sequence[Sequence[Arg]]
) -> tuple[CaseResult, ...]:
    """Each ok result with the positions of the array inputs its call changed: the
    child sends them back as the call left them, and they are compared here with the
    inputs this process sent, which student code cannot reach. (Code that rewrites
    the harness itself can send back anything, as it can send any result: it gains
    nothing it could not have by leaving its inputs alone.)"""
    marked = []
    for result, case in zip(results, cases, strict=True):
        if result.status != "ok":
            marked.append(result)
            continue
        positions = [i for i, arg in enumerate(case) if is_array(arg)]
        if len(result.inputs) != len(positions):
            raise ProtocolError(f"{len(result.inputs)} inputs sent back for {len(positions)}")
        mutated = tuple(
            position
            for position, after in zip(positions, result.inputs, strict=True)
            if not _same(case[position], after)
        )
        marked.append(replace(result, mutated=mutated, inputs=()))
    return tuple(marked)


def _same(before: Any, after: Packed) -> bool:
    """The same values, dtype and shape (NaN equal to NaN). The same bytes are the same
    array; other bytes may still hold equal values (0.0 and -0.0), which NumPy decides."""
    same_layout = isinstance(before, Packed) and _layout(before) == _layout(after)
    if same_layout and before.values == after.values:
        return True
    import numpy as np

    sent, back = np.asarray(as_array(before)), after.array()
    return (
        sent.shape == back.shape
        and sent.dtype == back.dtype
        and bool(np.array_equal(sent, back, equal_nan=sent.dtype.kind == "f"))
    )


def _layout(array: Packed) -> tuple[str, tuple[int, ...], bool]:
    return array.dtype, array.shape, array.fortran


def _drain(fd: int, capped: _Capped, limit: int) -> None:
    with contextlib.suppress(OSError, ValueError):
        os.set_blocking(fd, False)
        read = 0
        while read <= limit:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            read += len(chunk)
            capped.add(chunk)


def _cpu_spent(seconds: float, limits: Limits) -> bool:
    return seconds >= min(limits.cpu_seconds, limits.wall_seconds) * 0.5


def _signal_of(returncode: int, level: Level) -> int | None:
    if returncode < 0:
        return -returncode
    if returncode > 128:  # bwrap and the guard report a child's signal as 128 + N
        return returncode - 128
    return None


def kill_marked(mark: str) -> None:
    """Kill this user's processes started with our mark in their environment."""
    needle = f"{MARK_ENV}={mark}".encode()
    me = os.getpid()
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return
    for name in entries:
        pid = int(name)
        if pid == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def run_code(
    code: str,
    entry: str | Sequence[str],
    cases: Sequence[Sequence[Arg]],
    limits: Limits | None = None,
    report: LevelReport | None = None,
) -> RunResult:
    """One check from cold: start a worker, run the job, clean up."""
    return Worker(limits, report).run(code, entry, cases)
