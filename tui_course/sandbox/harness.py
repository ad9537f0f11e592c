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
        [frame.lineno, frame.name[:80], (frame.line or "").strip()[:200]]
        for frame in frames
        if frame.filename == path
    ]


def _exception(error: BaseException, path: str) -> dict[str, Any]:
    return {
        "status": "exception",
        "type": type(error).__name__[:80],
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
    result_fd: int,
    function: Any,
    args: tuple[Any, ...],
    path: str,
    limit: int,
    where: dict[str, int],
) -> None:
    """Call the function on one case and send what came back (arrays only), then the
    array inputs as the call left them: the parent, which sent them, compares them with
    its own copies (a copy kept here would be within the student's reach)."""
    import numpy as np

    arrays = tuple(arg for arg in args if isinstance(arg, np.ndarray))  # tuples: no swapping
    try:
        result = function(*args)
    except SystemExit as error:
        _send_json(result_fd, {"status": "exit", "code": str(error.code)[:200]} | where)
        return
    except MemoryError:
        _send_json(result_fd, {"status": "memory"} | where)
        return
    except BaseException as error:
        _send_json(result_fd, _exception(error, path) | where)
        return
    outputs = result if isinstance(result, tuple) else (result,)
    payloads = []
    for output in outputs:
        # exactly an ndarray (or a NumPy/Python number): a subclass or an object
        # with its own __eq__ never reaches the judge
        if type(output) in (int, float) or isinstance(output, np.generic):
            output = np.asarray(output)
        if type(output) is not np.ndarray:
            _send_json(
                result_fd, {"status": "not_array", "type": type(output).__name__[:80]} | where
            )
            return
        if output.dtype.kind not in "biuf":
            _send_json(
                result_fd, {"status": "not_array", "type": f"array of {output.dtype}"[:80]} | where
            )
            return
        if output.nbytes > limit:
            _send_json(result_fd, {"status": "too_large", "shape": list(output.shape)} | where)
            return
        payloads.append(_npy(output))
    inputs = [_npy(array) for array in arrays]
    _send_json(
        result_fd, {"status": "ok", **where, "outputs": len(payloads), "inputs": len(inputs)}
    )
    for payload in payloads + inputs:
        _send(result_fd, payload)


def _npy(array: Any) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


# seccomp: an allow-list of what Python and NumPy need once student code may run. Any
# other architecture's calls (i386 through int 0x80, x32) kill the process outright; any
# native call not listed fails with EPERM: no new processes or threads (a fork bomb or a
# setsid daemon fails instead of filling the machine; RLIMIT_NPROC does not bind root), no
# ptrace, no sockets, no namespaces or mounts, no io_uring, bpf, perf, keys or personality.
# Signals may be sent to this process only (not 0, its process group, where the limits-only
# waiter is), and resource limits read or lowered for it only. fcntl and ioctl take only the
# commands Python and NumPy use: no F_SETOWN/F_SETSIG or FIOSETOWN/FIOASYNC, which would have
# the kernel signal any process (SIGIO). No chmod, chown or utime: Landlock does not govern a
# file's mode or times, so without bwrap they would change the student's own files.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# name: (x86_64 number, aarch64 number or None where the call does not exist there)
_ALLOWED_CALLS: dict[str, tuple[int, int | None]] = {
    "read": (0, 63), "write": (1, 64), "readv": (19, 65), "writev": (20, 66),
    "pread64": (17, 67), "pwrite64": (18, 68), "close": (3, 57), "fstat": (5, 80),
    "newfstatat": (262, 79), "statx": (332, 291), "lseek": (8, 62), "mmap": (9, 222),
    "munmap": (11, 215), "mprotect": (10, 226), "brk": (12, 214), "madvise": (28, 233),
    "mremap": (25, 216), "mincore": (27, 232), "msync": (26, 227), "open": (2, None),
    "stat": (4, None), "lstat": (6, None), "access": (21, None), "faccessat": (269, 48),
    "faccessat2": (439, 439), "openat": (257, 56), "getdents64": (217, 61),
    "readlink": (89, None), "readlinkat": (267, 78), "getcwd": (79, 17),
    "dup": (32, 23), "dup2": (33, None), "dup3": (292, 24),
    "futex": (202, 98), "set_robust_list": (273, 99), "get_robust_list": (274, 100),
    "rseq": (334, 293), "rt_sigaction": (13, 134), "rt_sigprocmask": (14, 135),
    "rt_sigreturn": (15, 139), "rt_sigpending": (127, 136), "rt_sigtimedwait": (128, 137),
    "sigaltstack": (131, 132), "getpid": (39, 172), "gettid": (186, 178),
    "getppid": (110, 173), "getuid": (102, 174), "geteuid": (107, 175), "getgid": (104, 176),
    "getegid": (108, 177), "getgroups": (115, 158), "getresuid": (118, 148),
    "getresgid": (120, 150), "getpgrp": (111, None), "getpgid": (121, 155),
    "getsid": (124, 156), "uname": (63, 160), "getrandom": (318, 278),
    "clock_gettime": (228, 113), "clock_getres": (229, 114), "clock_nanosleep": (230, 115),
    "nanosleep": (35, 101), "gettimeofday": (96, 169), "time": (201, None),
    "sched_yield": (24, 124), "sched_getaffinity": (204, 123), "getrlimit": (97, 163),
    "getrusage": (98, 165), "times": (100, 153), "sysinfo": (99, 179), "exit": (60, 93),
    "exit_group": (231, 94), "poll": (7, None), "ppoll": (271, 73), "select": (23, None),
    "pselect6": (270, 72), "epoll_create1": (291, 20), "epoll_ctl": (233, 21),
    "epoll_wait": (232, None), "epoll_pwait": (281, 22), "pipe": (22, None),
    "pipe2": (293, 59), "eventfd2": (290, 19), "unlinkat": (263, 35), "unlink": (87, None),
    "mkdirat": (258, 34), "mkdir": (83, None), "rmdir": (84, None),
    "renameat2": (316, 276), "rename": (82, None), "ftruncate": (77, 46),
    "fsync": (74, 82), "fdatasync": (75, 83),
    "umask": (95, 166), "chdir": (80, 49), "fchdir": (81, 50),
    "membarrier": (324, 283), "getcpu": (309, 168), "fadvise64": (221, 223),
    "sched_getparam": (143, 121), "sched_getscheduler": (145, 120),
    "getpriority": (140, 141),
}  # fmt: skip
# calls allowed only when their first argument is this process's pid (signals), or that
# pid or 0 for "myself" (limits), or a harmless prctl option
_SIGNAL_CALLS: dict[str, tuple[int, int]] = {
    "kill": (62, 129), "tkill": (200, 130), "tgkill": (234, 131),
}  # fmt: skip
_PRLIMIT = (302, 261)
# calls allowed only with one of a few commands (their second argument)
_FCNTL = (72, 25)
_FCNTL_COMMANDS = (
    0, 1, 2, 3, 4, 5, 6, 7, 36, 37, 38, 1030, 1032,
)  # fmt: skip  # DUPFD, GET/SETFD, GET/SETFL, GET/SETLK(W), OFD locks, DUPFD_CLOEXEC, GETPIPE_SZ
_IOCTL = (16, 29)
_IOCTL_COMMANDS = (
    0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451,
)  # fmt: skip  # TCGETS (isatty), TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX
_PRCTL = (157, 167)
_PRCTL_OPTIONS = (
    3,
    15,
    16,
    23,
    39,
)  # GET_DUMPABLE, SET_NAME, GET_NAME, CAPBSET_READ, GET_NO_NEW_PRIVS
# the lowest number of the x32 ABI, which shares x86_64's audit architecture
_X32_BASE = 0x40000000


def seccomp_program(machine: str, pid: int) -> list[tuple[int, int, int, int]]:
    """The filter as classic BPF (code, jt, jf, k); every jump is local, so it never
    outgrows BPF's 8-bit offsets."""
    ld_abs_w, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    allow, kill = 0x7FFF0000, 0x80000000  # SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_PROCESS
    deny = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
    # struct seccomp_data: nr, arch, then args[] (the low word of each on little-endian)
    nr_offset, arch_offset, arg0_offset, arg1_offset = 0, 4, 16, 24
    column = 0 if machine == "x86_64" else 1
    program = [(ld_abs_w, 0, 0, arch_offset), (jeq_k, 1, 0, _AUDIT_ARCH[machine])]
    program += [(ret_k, 0, 0, kill), (ld_abs_w, 0, 0, nr_offset)]
    if machine == "x86_64":
        program += [(jge_k, 0, 1, _X32_BASE), (ret_k, 0, 0, kill)]
    for numbers in _ALLOWED_CALLS.values():
        number = numbers[column]
        if number is not None:
            program += [(jeq_k, 0, 1, number), (ret_k, 0, 0, allow)]

    def only_with(number: int, offset: int, values: tuple[int, ...]) -> None:
        block = [(ld_abs_w, 0, 0, offset)]
        for value in values:
            block += [(jeq_k, 0, 1, value & 0xFFFFFFFF), (ret_k, 0, 0, allow)]
        block.append((ret_k, 0, 0, deny))
        program.append((jeq_k, 0, len(block), number))
        program.extend(block)

    for numbers in _SIGNAL_CALLS.values():
        only_with(numbers[column], arg0_offset, (pid,))
    only_with(_PRLIMIT[column], arg0_offset, (0, pid))
    only_with(_PRCTL[column], arg0_offset, _PRCTL_OPTIONS)
    only_with(_FCNTL[column], arg1_offset, _FCNTL_COMMANDS)
    only_with(_IOCTL[column], arg1_offset, _IOCTL_COMMANDS)
    program.append((ret_k, 0, 0, deny))
    return program


def install_seccomp() -> bool:
    """Install the filter on this process; False where unsupported (no other architecture
    has a table here, and then the check says so)."""
    import ctypes
    import platform

    machine = platform.machine()
    if machine not in _AUDIT_ARCH or not sys.platform.startswith("linux"):
        return False
    program = seccomp_program(machine, os.getpid())

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


def become_student(settings: dict[str, Any]) -> None:
    """Before any student code: become the account it runs as (root's checks run as
    nobody), keep other processes of that account out of this one (no /proc/PID/mem or
    fd of ours for them: without namespaces a student's other session is one of them),
    then the system-call filter. Any step that fails ends the harness, never runs on."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    run_as = settings.get("run_as")
    if run_as is not None:
        uid, gid = int(run_as[0]), int(run_as[1])
        pr_capbset_drop = 24
        for capability in range(64):  # no capability can come back, not even by exec
            if libc.prctl(pr_capbset_drop, capability, 0, 0, 0) != 0:
                break  # past the last capability this kernel knows
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.getresuid() != (uid, uid, uid) or os.getgroups():
            raise SystemExit(4)
    if settings.get("private"):
        pr_set_dumpable = 4
        if libc.prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
            raise SystemExit(4)
        confine_files(settings.get("readable", []), settings.get("work_dir", ""))
    install_seccomp()


# Landlock (Linux 5.13+), used without bwrap: the files student code may open at all.
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ALL_V1 = (1 << 13) - 1  # execute ... make_sym
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2
_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_PACKAGE_DIRS = ("site-packages", "dist-packages")


def _landlock_calls() -> tuple[int, int, int] | None:
    import platform

    # landlock_create_ruleset, landlock_add_rule, landlock_restrict_self: one numbering
    # for every architecture since they were added
    return (444, 445, 446) if platform.machine() in _AUDIT_ARCH else None


def readable_paths(readable: list[str]) -> list[str]:
    """What may be read: the interpreter's library without any package folder (each entry
    of it but those), NumPy's folders, the shared libraries and a few devices."""
    paths: list[str] = []
    for folder in readable:
        paths.append(folder)
    for root in ("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib"):
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for name in names:
            if name.startswith("python"):
                paths.extend(_library_entries(os.path.join(root, name)))
            else:
                paths.append(os.path.join(root, name))
    for library in {os.path.dirname(os.__file__)}:
        paths.extend(_library_entries(library))
    paths += ["/dev/null", "/dev/zero", "/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo"]
    return paths


def _library_entries(folder: str) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, name) for name in names if name not in _PACKAGE_DIRS]


def confine_files(readable: list[str], work_dir: str) -> bool:
    """Without namespaces, limit the files student code can reach: read only the paths
    above, write only files that already exist in its work folder (its own student.py; no
    new file anywhere, so the disk cannot be filled), nothing else, home and course
    included. False where the kernel has no Landlock (rlimits alone then)."""
    import ctypes

    calls = _landlock_calls()
    if calls is None:
        return False
    create, add_rule, restrict = calls
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return False
    handled = _FS_ALL_V1
    if abi >= 2:
        handled |= _FS_REFER
    if abi >= 3:
        handled |= _FS_TRUNCATE
    if abi >= 5:
        handled |= _FS_IOCTL_DEV

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    # ABI 6: no signal to a process outside this domain, none to an abstract unix socket
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET if abi >= 6 else 0
    attr = RulesetAttr(handled, 0, scoped)
    size = ctypes.sizeof(attr) if scoped else ctypes.sizeof(ctypes.c_uint64)
    ruleset = libc.syscall(create, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        return False
    rules = [(path, _READ) for path in readable_paths(readable)]
    rules.append((work_dir, _READ | _FS_WRITE_FILE | (handled & _FS_TRUNCATE)))
    for path, allowed in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not os.path.isdir(path):
                allowed &= _FS_EXECUTE | _FS_READ_FILE | _FS_WRITE_FILE | _FS_TRUNCATE
            rule = PathBeneath(allowed & handled, fd)
            libc.syscall(add_rule, ruleset, 1, ctypes.byref(rule), 0)  # LANDLOCK_RULE_PATH_BENEATH
        finally:
            os.close(fd)
    pr_set_no_new_privs = 38
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise SystemExit(4)
    if libc.syscall(restrict, ruleset, 0) != 0:
        raise SystemExit(4)
    os.close(ruleset)
    return True


# imported before becoming nobody, for exercises that use them, where nobody could not
# import them later: without namespaces, an interpreter installed in root's home; under
# bwrap, one whose own folders others cannot read (command.library_open_to_all)
_COMMON_MODULES = (
    "math", "cmath", "random", "itertools", "functools", "collections", "operator",
    "statistics", "time", "typing", "dataclasses", "re", "string", "fractions", "decimal",
    "heapq", "bisect", "copy", "textwrap", "signal", "struct", "array", "json", "enum",
    "warnings", "numpy.linalg", "numpy.random", "numpy.fft",
)  # fmt: skip


def _import_common_modules() -> None:
    import importlib

    for name in _COMMON_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def _arguments(case: list[tuple[bytes, bool]]) -> tuple[Any, ...]:
    """Fresh inputs for one call, from the bytes the parent sent: whatever one entry
    does to its arrays, the next entry gets them as sent."""
    import numpy as np

    args: list[Any] = []
    for payload, is_scalar in case:
        try:
            array = np.load(io.BytesIO(payload), allow_pickle=False)
        except ValueError:  # the parent's own bytes: never, but not a traceback
            raise SystemExit(3) from None
        args.append(array.item() if is_scalar else array)
    return tuple(args)


def main(settings: dict[str, Any]) -> int:
    request_fd, result_fd = int(sys.argv[1]), int(sys.argv[2])
    work_dir = sys.argv[3]
    for extra in sys.argv[5:]:
        sys.path.append(extra)  # where NumPy (and nothing else) was bound
    import gc

    gc.disable()  # NumPy's objects live as long as this process: no passes over them
    import numpy  # noqa: F401  (imported before the walls go up and the clock starts)

    if settings.get("preload"):
        _import_common_modules()  # root's interpreter may live where nobody cannot read
    gc.freeze()  # student code's collections walk its own objects only
    gc.enable()
    become_student(settings)
    _send_json(result_fd, {"status": "ready"})
    try:
        header = json.loads(_read_frame(request_fd))
        cases = [
            [(_read_frame(request_fd), is_scalar) for is_scalar in case] for case in header["cases"]
        ]
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
    except (SyntaxError, ValueError) as error:  # a NUL byte: ValueError on some 3.11s
        line = getattr(error, "lineno", None)
        if "\0" in code and line is None:
            line = code[: code.index("\0")].count("\n") + 1
        message = getattr(error, "msg", None) or str(error)
        text = getattr(error, "text", None) or ""
        _send_json(
            result_fd,
            {
                "status": "syntax_error",
                "line": line,
                "offset": getattr(error, "offset", None),
                "message": str(message)[:200],
                "text": text.replace("\0", "").rstrip("\n")[:200],
            },
        )
        return 0
    namespace: dict[str, Any] = {"__name__": "student", "__file__": path}
    try:
        exec(compiled, namespace)
    except SystemExit as error:
        _send_json(
            result_fd, {"status": "exit", "code": str(error.code)[:200], "where": "load"} | _END
        )
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
        for index, case in enumerate(cases):
            where = {"entry": entry_index, "case": index}
            _run_case(result_fd, function, _arguments(case), path, limit, where)
    _send_json(result_fd, {"status": "done"})
    return 0


def _guarded(settings: dict[str, Any]) -> int:
    """Without namespaces, the student's code must not find the app as its parent: a
    fork puts this small waiter between them (killing it ends the check, not the app).
    The waiter also holds the lifeline: when the parent closes it (the check is over) or
    dies (kill -9, a hangup), the waiter kills the student's process at once."""
    import select

    lifeline = settings.get("lifeline")
    pid = os.fork()
    if pid:
        os.close(int(sys.argv[1]))
        os.close(int(sys.argv[2]))
        if lifeline is not None:
            child = os.pidfd_open(pid)
            while True:
                ready, _, _ = select.select([child, lifeline], [], [])
                if child in ready:
                    break
                if not os.read(lifeline, 1):  # end of file: the parent is done or gone
                    os.kill(pid, 9)
                    break
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) if status else 0
    if lifeline is not None:
        os.close(lifeline)
    return main(settings)


if __name__ == "__main__":
    _settings = json.loads(sys.argv[4])
    apply_limits(_settings)
    guarded = os.environ.pop("ATTN_TUI_GUARD", "") == "1"
    code = _guarded(_settings) if guarded else main(_settings)
    sys.stdout.flush()
    os._exit(code if code >= 0 else 128 - code)
