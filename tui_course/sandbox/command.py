"""The child's command line: bwrap with its binds and a clean environment, or the bare
interpreter (rlimits only). Limits themselves are set by the harness before any student
code runs (soft = hard), so they hold under both.

Whoever starts a check, student code never runs as root or with a capability: an
ordinary caller's bwrap maps it to uid 65534 in a user namespace of its own, with every
capability dropped; a root caller's harness (under bwrap's other namespaces, or under
rlimits alone) imports NumPy, then becomes the unprivileged `nobody` account for real
before any student code, so the kernel's settings (/proc/sys among them) and root's files
stay out of reach even where a mount could be undone.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import stat
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
SANDBOX_ID = 65534  # the uid and gid student code has inside bwrap's user namespace
NOBODY = "nobody"


@dataclass(frozen=True)
class Account:
    """Who student code runs as outside the sandbox's namespaces."""

    uid: int
    gid: int
    name: str

    @property
    def dropped(self) -> bool:
        """Whether checks run as another account than the caller (root's do)."""
        return self.uid != os.geteuid()


def sandbox_account() -> Account:
    """The caller itself, or `nobody` when the caller is root (no capability, no file of
    root's, no kernel setting is then within reach of student code)."""
    euid = os.geteuid()
    if euid != 0:
        return Account(euid, os.getegid(), _user_name(euid))
    import pwd

    try:
        entry = pwd.getpwnam(NOBODY)
        return Account(entry.pw_uid, entry.pw_gid, NOBODY)
    except KeyError:
        return Account(SANDBOX_ID, SANDBOX_ID, f"uid {SANDBOX_ID}")


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


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
    found.update(system_package_dirs())
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


def system_package_dirs() -> list[Path]:
    """Every interpreter's package folders under the system binds (Debian's
    /usr/lib/python3/dist-packages, /usr/local/lib/python3.X/site-packages...): student
    code that appends one to sys.path must find it empty."""
    found: list[Path] = []
    for root in ("/usr/lib", "/usr/local/lib", "/usr/lib64", "/usr/local/lib64"):
        for pattern in ("python3*/site-packages", "python3*/dist-packages"):
            found.extend(Path(root).glob(pattern))
    found.extend(Path(sys.base_prefix).glob("lib*/python3*/site-packages"))
    return found


_BWRAP_VERSIONS: dict[str, tuple[int, ...]] = {}


def bwrap_version(bwrap: str) -> tuple[int, ...]:
    """`bwrap --version`, asked once per process (or known from the remembered probe)."""
    known = _BWRAP_VERSIONS.get(bwrap)
    if known is not None:
        return known
    try:
        out = subprocess.run(
            [bwrap, "--version"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
        version = tuple(int(part) for part in out.split()[-1].split("."))
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        version = (0,)
    _BWRAP_VERSIONS[bwrap] = version
    return version


def remember_bwrap_version(bwrap: str, version: tuple[int, ...]) -> None:
    """The version a remembered probe of this very binary found (sandbox.level)."""
    _BWRAP_VERSIONS[bwrap] = version


def forget_bwrap_versions() -> None:
    _BWRAP_VERSIONS.clear()


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


def _open_parents(destinations: Iterable[Path]) -> list[str]:
    system = [Path(folder) for folder in SYSTEM_DIRS]
    made: list[Path] = []
    for destination in destinations:
        for parent in reversed(destination.parents):
            if parent == Path("/") or parent in made or is_inside(parent, system):
                continue
            made.append(parent)
    args: list[str] = []
    for parent in made:
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def is_inside(path: Path, roots: Sequence[Path]) -> bool:
    """`path` is one of `roots` or below one, by their parts (what `root in path.parents`
    says, without making a Path for each parent: bwrap_command asks this hundreds of
    times before the check's child can start)."""
    parts = path.parts
    return any(parts[: len(root.parts)] == root.parts for root in roots)


def bwrap_command(
    bwrap: str,
    python_args: Sequence[str],
    limits: Limits,
    hidden: Iterable[Path] = (),
    info_fd: int | None = None,
    as_root: bool = False,
) -> ChildCommand:
    """bwrap: no network (every namespace unshared), no home, data or class folders,
    read-only system files, NumPy alone on the path, one small tmpfs (/tmp) the only
    writable place. The harness is the namespace's pid 1 (no init of bwrap's that student
    code could take over), so the whole namespace ends when it does; `info_fd` receives
    its pid outside, for the parent to kill.

    An ordinary caller: a user namespace too, uid and gid 65534 inside, no capability.
    `as_root` (root started the check): no user namespace, which would map student code
    to root outside; the harness becomes nobody itself once NumPy is imported."""
    python = python_binary()
    args = [bwrap]
    if as_root:
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        args += ["--unshare-cgroup-try"]
    else:
        args += ["--unshare-all", "--unshare-user", "--uid", str(SANDBOX_ID)]
        args += ["--gid", str(SANDBOX_ID), "--cap-drop", "ALL"]
        if bwrap_version(bwrap) >= (0, 8):
            args.append("--disable-userns")  # no nested namespaces from inside
    args += ["--as-pid-1", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    args.append("--clearenv")
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    for name, value in CLEAN_ENV.items():
        args += ["--setenv", name, value]
    args += ["--setenv", "HOME", WORK_DIR]
    args += _system_binds()
    # the folders above our own binds, made readable by all: bwrap makes them 0700, which
    # nobody (root's checks) could not pass through
    destinations = [Path(sys.base_prefix).resolve(), Path(python).parent, Path(SANDBOX_HARNESS)]
    destinations += [Path(SANDBOX_SITE, folder.name) for folder in numpy_dirs()]
    args += _open_parents(destinations)
    bound = [Path(folder) for folder in SYSTEM_DIRS if os.path.isdir(folder)]
    prefix = Path(sys.base_prefix).resolve()
    if not is_inside(prefix, bound):
        args += ["--ro-bind", str(prefix), str(prefix)]
        bound.append(prefix)
    binary_dir = Path(python).parent
    if not is_inside(binary_dir, bound):
        args += ["--ro-bind", str(binary_dir), str(binary_dir)]
        bound.append(binary_dir)
    for folder in numpy_dirs():
        args += ["--ro-bind", str(folder), f"{SANDBOX_SITE}/{folder.name}"]
    stdlib = [Path(sysconfig.get_path(key)).resolve() for key in ("stdlib", "platstdlib")]
    needed = [prefix, binary_dir, *stdlib, *(Path(folder) for folder in SYSTEM_DIRS)]
    for folder in sensitive_dirs(hidden):
        # hidden under a tmpfs where a bind holds it, unless Python itself lives in it
        if is_inside(folder, bound) and not any(is_inside(path, [folder]) for path in needed):
            args += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    # /dev read-only (its /dev/shm would be a tmpfs of half the machine's memory), then
    # the one writable place, with its size, and the new root itself read-only
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    if as_root:  # made by root, written by nobody
        args += ["--perms", "01777"]
    args += ["--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp"]
    if as_root:
        args += ["--perms", "0777"]
    args += ["--dir", WORK_DIR]
    args += ["--ro-bind", str(HARNESS), SANDBOX_HARNESS, "--remount-ro", "/"]
    args += ["--chdir", WORK_DIR]
    args += ["--", python, "-I", "-S", SANDBOX_HARNESS, *python_args, SANDBOX_SITE]
    return ChildCommand(args, {}, None)


def limits_only_command(python_args: Sequence[str], work_dir: Path, site_dir: Path) -> ChildCommand:
    """No namespaces: the same harness under rlimits, NumPy linked into a folder of its own."""
    env = dict(CLEAN_ENV, HOME=str(work_dir), ATTN_TUI_GUARD="1")
    argv = [python_binary(), "-I", "-S", str(HARNESS), *python_args, str(site_dir)]
    return ChildCommand(argv, env, str(work_dir))


def harness_args(
    request_fd: int,
    result_fd: int,
    work_dir: str,
    limits: Limits,
    account: Account,
    drop_to: Account | None = None,
    lifeline_fd: int | None = None,
    readable: Sequence[Path] | None = None,
    preload: bool = False,
) -> list[str]:
    """The harness's arguments. `drop_to`: the account the harness becomes once NumPy is
    imported (for a root caller). `lifeline_fd`: a pipe whose end of file (the parent
    gone, or done with the check) makes the harness's waiter kill it. `readable` (limits
    only): the folders student code may read besides the interpreter's own library.
    `preload`: import the modules exercises use before becoming `drop_to`, whose account
    could not read them later (see library_open_to_all)."""
    wanted = dataclasses.asdict(limits)
    shown: dict[str, object] = {
        key: wanted[key]
        for key in ("cpu_seconds", "memory_bytes", "file_bytes", "open_files", "processes")
    }
    shown["processes"] = _process_allowance(limits.processes, account.uid)
    if drop_to is not None:
        shown["run_as"] = [drop_to.uid, drop_to.gid]
        if preload:
            shown["preload"] = True
    if lifeline_fd is not None:
        shown["lifeline"] = lifeline_fd
    if readable is not None:  # no namespaces: Landlock keeps it to these and its folder
        shown["private"] = True
        shown["readable"] = [str(path) for path in readable]
        shown["work_dir"] = work_dir
    return [str(request_fd), str(result_fd), work_dir, json.dumps(shown)]


def library_open_to_all() -> bool:
    """Whether any account can read the interpreter's own library from its prefix down
    (folders o+rx, as an installed Python's are). Under bwrap the folders above the prefix
    are made 0755 (bwrap_command), so `nobody`, whom root's checks run as, then imports
    what student code asks for when it asks; otherwise (an interpreter in a private
    folder) the harness imports the common modules before it becomes nobody."""
    prefix = Path(sys.base_prefix).resolve()
    library = Path(os.__file__).resolve().parent  # the standard library, never a venv's
    folders = {prefix, Path(python_binary()).parent, library, library / "lib-dynload"}
    folders.update(parent for parent in library.parents if is_inside(parent, [prefix]))
    needed = stat.S_IROTH | stat.S_IXOTH
    try:
        return all(os.stat(folder).st_mode & needed == needed for folder in folders)
    except OSError:
        return False


def _process_allowance(extra: int, uid: int) -> int:
    """RLIMIT_NPROC counts every process of the user: allow what runs already, plus extra."""
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


PROBE_SCRIPT = (
    "import os, sys\n"
    "if len(sys.argv) > 3:\n"
    "    uid, gid = int(sys.argv[3]), int(sys.argv[4])\n"
    "    os.setgroups([]); os.setresgid(gid, gid, gid); os.setresuid(uid, uid, uid)\n"
    "open(sys.argv[1] + '/numpy/__init__.py', 'rb').read(1); open(sys.argv[2], 'rb').read(1)\n"
    "print('sandboxed', os.getuid())"
)


def probe_command(bwrap: str, account: Account) -> list[str]:
    """The real sandbox, asked to read NumPy and the harness and say its uid: it works
    as student code will (as nobody, for root), or it does not."""
    as_root = account.dropped
    command = bwrap_command(bwrap, [], Limits(), as_root=as_root)
    argv = command.argv[: command.argv.index("--")]
    script = ["-c", PROBE_SCRIPT, SANDBOX_SITE, SANDBOX_HARNESS]
    if as_root:
        script += [str(account.uid), str(account.gid)]
    return [*argv, "--", python_binary(), "-I", "-S", *script]


def probe_uid(account: Account) -> int:
    """The uid the probe must report: nobody's own, or 65534 inside the user namespace."""
    return account.uid if account.dropped else SANDBOX_ID
