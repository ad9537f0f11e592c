"""The child's side of a check: runs inside the sandbox, never imported by the app.

Started as a script (`python -I -S harness.py`), it imports NumPy, says it is ready,
then waits for one job on its request fd: the student's code, the entry name and the
input arrays. It writes results to its result fd as length-prefixed frames: JSON
headers and `.npy` payloads (never pickles). It serves exactly one job and exits, so
nothing one check leaves behind reaches the next.

This file must not import tui_course: the sandbox holds NumPy and this file only.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import sys
import traceback
from typing import Any

STUDENT_FILE = "student.py"
_END = {"final": True}  # marks a load error as the last frame (its output flushed first)
_LENGTH = struct.Struct(">I")


def _read_exact(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> bytes:
    (size,) = _LENGTH.unpack(_read_exact(fd, _LENGTH.size))
    return _read_exact(fd, size)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _send(fd: int, payload: bytes) -> None:
    _write_all(fd, _LENGTH.pack(len(payload)) + payload)


def _send_json(fd: int, message: dict[str, Any]) -> None:
    if message.get("status") in _FINAL or message.get("final"):
        # what was printed reaches its pipe before the parent hears the end
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    _send(fd, json.dumps(message).encode())


# after these the parent stops reading and ends the child
_FINAL = frozenset({"done", "syntax_error", "missing_entry"})


def _student_frames(error: BaseException, path: str) -> list[list[Any]]:
    """Only the student's own frames: the harness's are noise to them."""
    frames = traceback.extract_tb(error.__traceback__)
    return [
        [frame.lineno, frame.name, (frame.line or "").strip()]
        for frame in frames
        if frame.filename == path
    ]


def _exception(error: BaseException, path: str) -> dict[str, Any]:
    return {
        "status": "exception",
        "type": type(error).__name__,
        "message": str(error)[:2000],
        "frames": _student_frames(error, path)[-20:],
    }


def apply_limits(limits: dict[str, int]) -> None:
    """Set before any student code runs; soft = hard, so the code cannot raise them."""
    import resource

    cpu = limits["cpu_seconds"]
    settings = [
        (resource.RLIMIT_CPU, cpu, cpu + 1),  # SIGXCPU first, SIGKILL a second later
        (resource.RLIMIT_AS, limits["memory_bytes"], limits["memory_bytes"]),
        (resource.RLIMIT_FSIZE, limits["file_bytes"], limits["file_bytes"]),
        (resource.RLIMIT_NOFILE, limits["open_files"], limits["open_files"]),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if limits.get("processes"):
        settings.append((resource.RLIMIT_NPROC, limits["processes"], limits["processes"]))
    for which, soft, hard in settings:
        try:
            _, old_hard = resource.getrlimit(which)
            if old_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, old_hard), min(hard, old_hard)
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            pass  # a limit this system refuses; the others and the wall clock still hold


def _run_case(
    result_fd: int, function: Any, args: list[Any], path: str, limit: int, where: dict[str, int]
) -> None:
    """Call the function on one case and send what came back (arrays only)."""
    import numpy as np

    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        result = function(*args)
    except SystemExit as error:
        _send_json(result_fd, {"status": "exit", "code": str(error.code)} | where)
        return
    except MemoryError:
        _send_json(result_fd, {"status": "memory"} | where)
        return
    except BaseException as error:
        _send_json(result_fd, _exception(error, path) | where)
        return
    mutated = [
        position
        for position, (arg, copy) in enumerate(zip(args, copies, strict=True))
        if isinstance(arg, np.ndarray)
        and (arg.shape != copy.shape or not np.array_equal(arg, copy, equal_nan=True))
    ]
    outputs = result if isinstance(result, tuple) else (result,)
    payloads = []
    problem: dict[str, Any] | None = None
    for output in outputs:
        # exactly an ndarray (or a NumPy/Python number): a subclass or an object
        # with its own __eq__ never reaches the judge
        if type(output) in (int, float) or isinstance(output, np.generic):
            output = np.asarray(output)
        if type(output) is not np.ndarray:
            problem = {"status": "not_array", "type": type(output).__name__[:80]}
            break
        if output.dtype.kind not in "biuf":
            problem = {"status": "not_array", "type": f"array of {output.dtype}"[:80]}
            break
        if output.nbytes > limit:
            problem = {"status": "too_large", "shape": list(output.shape)}
            break
        buffer = io.BytesIO()
        np.save(buffer, output, allow_pickle=False)
        payloads.append(buffer.getvalue())
    if problem is not None:
        _send_json(result_fd, problem | {**where, "mutated": mutated})
        return
    _send_json(
        result_fd,
        {"status": "ok", **where, "outputs": len(payloads), "mutated": mutated},
    )
    for payload in payloads:
        _send(result_fd, payload)


# seccomp: no new processes (fork, vfork, clone, clone3) once student code may run. A fork
# bomb or a setsid daemon then fails with EPERM instead of filling the machine: RLIMIT_NPROC
# does not bind root, and CI and some lab containers run as root.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SPAWN_CALLS = {"x86_64": (56, 57, 58, 435), "aarch64": (220, 435)}


def forbid_new_processes() -> bool:
    """Install the filter on this process (inherited by threads); False where unsupported."""
    import ctypes
    import platform

    machine = platform.machine()
    if machine not in _AUDIT_ARCH or not sys.platform.startswith("linux"):
        return False
    ld_abs_w, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    calls = _SPAWN_CALLS[machine]
    program = [(ld_abs_w, 0, 0, 4), (jeq_k, 1, 0, _AUDIT_ARCH[machine]), (ret_k, 0, 0, allow)]
    program.append((ld_abs_w, 0, 0, 0))
    if machine == "x86_64":  # the x32 ABI numbers its calls from 0x40000000
        program.append((jge_k, len(calls) + 1, 0, 0x40000000))
    for index, number in enumerate(calls):
        program.append((jeq_k, len(calls) - index, 0, number))
    program += [(ret_k, 0, 0, allow), (ret_k, 0, 0, deny)]

    class SockFilter(ctypes.Structure):
        _fields_ = [
            ("code", ctypes.c_ushort),
            ("jt", ctypes.c_ubyte),
            ("jf", ctypes.c_ubyte),
            ("k", ctypes.c_uint),
        ]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

    filters = (SockFilter * len(program))(*[SockFilter(*entry) for entry in program])
    fprog = SockFprog(len(program), filters)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        return False
    return bool(libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) == 0)


def main() -> int:
    request_fd, result_fd = int(sys.argv[1]), int(sys.argv[2])
    work_dir = sys.argv[3]
    for extra in sys.argv[5:]:
        sys.path.append(extra)  # where NumPy (and nothing else) was bound
    import numpy as np

    forbid_new_processes()
    _send_json(result_fd, {"status": "ready"})
    try:
        header = json.loads(_read_frame(request_fd))
        inputs = []
        for case in header["cases"]:
            args: list[Any] = []
            for is_scalar in case:
                array = np.load(io.BytesIO(_read_frame(request_fd)), allow_pickle=False)
                args.append(array.item() if is_scalar else array)
            inputs.append(args)
    except (EOFError, ValueError, KeyError, OSError):
        return 3  # the parent went away or sent nonsense: nothing to do
    os.close(request_fd)
    path = os.path.join(work_dir, STUDENT_FILE)
    code = header["code"]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(code)
    os.chdir(work_dir)
    try:
        compiled = compile(code, path, "exec")
    except SyntaxError as error:
        _send_json(
            result_fd,
            {
                "status": "syntax_error",
                "line": error.lineno,
                "offset": error.offset,
                "message": error.msg,
                "text": (error.text or "").rstrip("\n"),
            },
        )
        return 0
    namespace: dict[str, Any] = {"__name__": "student", "__file__": path}
    try:
        exec(compiled, namespace)
    except SystemExit as error:
        _send_json(result_fd, {"status": "exit", "code": str(error.code), "where": "load"} | _END)
        return 0
    except BaseException as error:
        _send_json(result_fd, _exception(error, path) | {"where": "load"} | _END)
        return 0
    functions = []
    for name in header["entries"]:
        function = namespace.get(name)
        if not callable(function):
            _send_json(result_fd, {"status": "missing_entry", "entry": name})
            return 0
        functions.append(function)
    _send_json(result_fd, {"status": "loaded"})
    limit = int(header["max_result_bytes"])
    for entry_index, function in enumerate(functions):
        for index, args in enumerate(inputs):
            where = {"entry": entry_index, "case": index}
            _run_case(result_fd, function, args, path, limit, where)
    _send_json(result_fd, {"status": "done"})
    return 0


def _guarded() -> int:
    """Without namespaces, the student's code must not find the app as its parent: a
    fork puts this small waiter between them (killing it ends the check, not the app)."""
    pid = os.fork()
    if pid:
        os.close(int(sys.argv[1]))
        os.close(int(sys.argv[2]))
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) if status else 0
    return main()


if __name__ == "__main__":
    apply_limits(json.loads(sys.argv[4]))
    guarded = os.environ.pop("ATTN_TUI_GUARD", "") == "1"
    code = _guarded() if guarded else main()
    sys.stdout.flush()
    os._exit(code if code >= 0 else 128 - code)
