"""The child's command line: bwrap with its binds and a clean environment, or the bare
interpreter (rlimits only). Limits themselves are set by the harness before any student
code runs (soft = hard), so they hold under both."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui_course.sandbox.limits import Limits

HARNESS = Path(__file__).with_name("harness.py")
SANDBOX_HARNESS = "/sandbox/harness.py"
SANDBOX_SITE = "/sandbox/site"  # NumPy alone is bound here
WORK_DIR = "/tmp/work"
CLEAN_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8:replace",
}
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def python_binary() -> str:
    """The real interpreter behind a venv's symlink: started with -I -S it finds only
    the standard library, never the venv's site-packages (where tui_course lives)."""
    return os.path.realpath(sys.executable)


def numpy_dirs() -> list[Path]:
    """NumPy's package folder and its bundled libraries, found without importing it."""
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        return []
    package = Path(next(iter(spec.submodule_search_locations))).resolve()
    dirs = [package]
    libs = package.parent / "numpy.libs"
    if libs.is_dir():
        dirs.append(libs.resolve())
    return dirs


def sensitive_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Folders that must look empty inside the sandbox even when a system bind holds them:
    every site-packages (tui_course may be installed there), the package, the home."""
    found: set[Path] = set()
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        found.add(Path(paths[key]))
    for prefix in {sys.prefix, sys.base_prefix}:
        for key in ("purelib", "platlib"):
            found.add(Path(sysconfig.get_path(key, vars={"base": prefix, "platbase": prefix})))
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")):
            found.add(Path(entry))
    found.add(Path(__file__).resolve().parent.parent)  # tui_course itself
    home = os.environ.get("HOME")
    if home:
        found.add(Path(home))
    found.update(extra)
    resolved = set()
    for path in found:
        try:
            if path.is_dir():
                resolved.add(path.resolve())
        except OSError:
            continue
    return sorted(resolved)


@functools.cache
def bwrap_version(bwrap: str) -> tuple[int, ...]:
    try:
        out = subprocess.run(
            [bwrap, "--version"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
        return tuple(int(part) for part in out.split()[-1].split("."))
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return (0,)


@dataclass(frozen=True)
class ChildCommand:
    argv: list[str]
    env: dict[str, str]
    cwd: str | None  # limits only: the private folder made for this run


def _system_binds() -> list[str]:
    args: list[str] = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    return args


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def bwrap_command(
    bwrap: str,
    python_args: Sequence[str],
    limits: Limits,
    hidden: Iterable[Path] = (),
) -> ChildCommand:
    """bwrap: no network (every namespace unshared), no home, data or class folders,
    read-only system files, NumPy alone on the path, a small tmpfs to work in."""
    python = python_binary()
    args = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
    ]
    if bwrap_version(bwrap) >= (0, 8):
        args.append("--disable-userns")  # no nested namespaces from inside
    for name, value in CLEAN_ENV.items():
        args += ["--setenv", name, value]
    args += ["--setenv", "HOME", WORK_DIR]
    args += _system_binds()
    bound = [Path(folder) for folder in SYSTEM_DIRS if os.path.isdir(folder)]
    prefix = Path(sys.base_prefix).resolve()
    if not _inside(prefix, bound):
        args += ["--ro-bind", str(prefix), str(prefix)]
        bound.append(prefix)
    binary_dir = Path(python).parent
    if not _inside(binary_dir, bound):
        args += ["--ro-bind", str(binary_dir), str(binary_dir)]
        bound.append(binary_dir)
    for folder in numpy_dirs():
        args += ["--ro-bind", str(folder), f"{SANDBOX_SITE}/{folder.name}"]
    stdlib = [Path(sysconfig.get_path(key)).resolve() for key in ("stdlib", "platstdlib")]
    needed = [prefix, binary_dir, *stdlib, *(Path(folder) for folder in SYSTEM_DIRS)]
    for folder in sensitive_dirs(hidden):
        # hidden under a tmpfs where a bind holds it, unless Python itself lives in it
        if _inside(folder, bound) and not any(_inside(path, [folder]) for path in needed):
            args += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp", "--dir", WORK_DIR]
    args += ["--ro-bind", str(HARNESS), SANDBOX_HARNESS, "--chdir", WORK_DIR]
    args += ["--", python, "-I", "-S", SANDBOX_HARNESS, *python_args, SANDBOX_SITE]
    return ChildCommand(args, {}, None)


def limits_only_command(python_args: Sequence[str], work_dir: Path, site_dir: Path) -> ChildCommand:
    """No namespaces: the same harness under rlimits, NumPy linked into a folder of its own."""
    env = dict(CLEAN_ENV, HOME=str(work_dir), ATTN_TUI_GUARD="1")
    argv = [python_binary(), "-I", "-S", str(HARNESS), *python_args, str(site_dir)]
    return ChildCommand(argv, env, str(work_dir))


def harness_args(request_fd: int, result_fd: int, work_dir: str, limits: Limits) -> list[str]:
    wanted = dataclasses.asdict(limits)
    shown = {
        key: wanted[key]
        for key in ("cpu_seconds", "memory_bytes", "file_bytes", "open_files", "processes")
    }
    shown["processes"] = _process_allowance(limits.processes)
    return [str(request_fd), str(result_fd), work_dir, json.dumps(shown)]


def _process_allowance(extra: int) -> int:
    """RLIMIT_NPROC counts every process of the user: allow what runs already, plus extra."""
    uid = os.getuid()
    count = 0
    try:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        count += 1
                except OSError:
                    continue
    except OSError:
        return 0  # unknown: leave the limit unset rather than break every check
    return count + extra


def probe_command(bwrap: str) -> list[str]:
    """The real sandbox, asked only to print a word: it works, or it does not."""
    command = bwrap_command(bwrap, [], Limits())
    argv = command.argv[: command.argv.index("--")]
    return [*argv, "--", python_binary(), "-I", "-S", "-c", "print('sandboxed')"]
