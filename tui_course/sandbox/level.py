"""Which sandbox this machine gives student code: bubblewrap, rlimits alone, or none.

One probe, cached per process: `doctor`, the CLI and the UI all ask here, so they
name the same level and the same fix.

A probe that found bwrap working is also kept in a file of the caller's data folder
(when the caller names one: `attn-tui check`, its --watch, the app), so a student's
next check does not start a sandbox only to learn what the last one learned. The file
holds a digest of everything the answer depends on (the bwrap binary's path, inode,
size and times; the site config; the account; the interpreter and NumPy; the sandbox's
own code; the kernel's user-namespace switches and boot), and is believed only while
that digest matches, only as a small regular file of this user that nobody else may
write, read without following links. Anything else, or any error, and the probe runs
again. Only a working bwrap is remembered (a failed probe may be passing trouble), and
the bwrap to use is always the one found now, never one named in the file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

BWRAP_ENV = "ATTN_TUI_BWRAP"  # a bwrap binary to use instead of the one on PATH ("" = none)


class Level(StrEnum):
    BWRAP = "bwrap"
    LIMITS = "limits only"
    NONE = "none"


@dataclass(frozen=True)
class LevelReport:
    level: Level
    detail: str  # what was found, one line
    fix: str = ""  # the line that raises the level, when there is one
    bwrap: str | None = None  # the binary that works
    runs_as: str = ""  # the account student code runs as, outside any namespace

    @property
    def warning(self) -> str | None:
        """The one line the app shows when checks run with less than bwrap."""
        if self.level is Level.BWRAP:
            return None
        if self.level is Level.LIMITS:
            return (
                "Your code runs with time and memory limits only, not in a sandbox "
                f"({self.detail}); fix: {self.fix}"
            )
        return f"Code cannot be run here: {self.detail}"


INSTALL_FIX = "sudo apt-get install bubblewrap"
USERNS_FIX = (
    "allow unprivileged user namespaces: sudo sysctl -w kernel.apparmor_restrict_"
    "unprivileged_userns=0 (Ubuntu 24.04) or kernel.unprivileged_userns_clone=1"
)


TRUSTED_BWRAPS = ("/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap")


def find_bwrap(managed: bool = False) -> str | None:
    """The bwrap to use. On a managed server (a machine-wide site config) neither
    $ATTN_TUI_BWRAP nor PATH is listened to: a student with a shell could name a fake
    bwrap that runs the reference and their code unsandboxed. There, and always for a
    named or found binary, it must be root's (or, off a managed server, the caller's) and
    writable by nobody else, nor its folder."""
    if managed:
        return next((path for path in TRUSTED_BWRAPS if trusted_binary(path, managed)), None)
    chosen = os.environ.get(BWRAP_ENV)
    if chosen is not None:
        return chosen if chosen and trusted_binary(chosen, managed) else None
    found = shutil.which("bwrap")
    return found if found and trusted_binary(found, managed) else None


def trusted_binary(path: str, managed: bool) -> bool:
    owners = {0} if managed else {0, os.geteuid()}
    try:
        real = os.path.realpath(path)
        for checked in (real, os.path.dirname(real)):
            status = os.stat(checked)
            if status.st_uid not in owners or status.st_mode & 0o022:
                return False
        return os.access(real, os.X_OK)
    except OSError:
        return False


def managed_server() -> bool:
    """A machine-wide site config exists: this is a class server, whatever the caller's
    environment says."""
    from tui_course import paths

    return paths.SITE_CONFIG_PATH.exists()


@functools.cache
def _probe(bwrap: str | None, cache_dir: Path | None = None) -> LevelReport:
    try:
        import resource  # noqa: F401  (POSIX only)
    except ImportError:
        return LevelReport(Level.NONE, "this system has no POSIX resource limits")
    from tui_course.sandbox.command import remember_bwrap_version, sandbox_account

    account = sandbox_account()
    runs_as = f"{account.name} (uid {account.uid})"
    if bwrap is None:
        detail = "bubblewrap (bwrap) is not installed"
        return LevelReport(Level.LIMITS, detail, INSTALL_FIX, runs_as=runs_as)
    key = probe_key(bwrap) if cache_dir is not None else None
    if cache_dir is not None and key is not None:
        version = _read_cached_probe(cache_dir / LEVEL_CACHE_NAME, key)
        if version is not None:
            remember_bwrap_version(bwrap, version)
            return LevelReport(Level.BWRAP, f"bubblewrap ({bwrap})", bwrap=bwrap, runs_as=runs_as)
    report = _run_probe(bwrap, runs_as)
    if report.level is Level.BWRAP and cache_dir is not None and key is not None:
        _write_cached_probe(cache_dir, key, bwrap)
    return report


def _run_probe(bwrap: str, runs_as: str) -> LevelReport:
    """Start the real sandbox once and see it work as student code will."""
    from tui_course.sandbox.command import probe_command, probe_uid, sandbox_account

    account = sandbox_account()
    try:
        result = subprocess.run(
            probe_command(bwrap, account),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
            cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return LevelReport(
            Level.LIMITS, f"bwrap cannot start: {error}", INSTALL_FIX, runs_as=runs_as
        )
    said = [b"sandboxed", str(probe_uid(account)).encode()]
    if result.returncode != 0 or result.stdout.split() != said:
        reason = result.stderr.decode(errors="replace").strip().splitlines()
        shown = reason[-1][:160] if reason else f"exit status {result.returncode}"
        fix = USERNS_FIX
        detail = f"bwrap cannot make a sandbox here: {shown}"
        return LevelReport(Level.LIMITS, detail, fix, runs_as=runs_as)
    return LevelReport(Level.BWRAP, f"bubblewrap ({bwrap})", bwrap=bwrap, runs_as=runs_as)


def sandbox_level(cache_dir: Path | None = None) -> LevelReport:
    """The level checks run at on this machine and account (probed once per process;
    with `cache_dir`, a working bwrap is remembered there across processes)."""
    return _probe(find_bwrap(managed_server()), cache_dir)


def forget_probe(cache_dir: Path | None = None) -> None:
    """Probe again: tests change PATH or $ATTN_TUI_BWRAP between probes; a check whose
    sandbox did not start though the remembered probe said it would removes the file."""
    from tui_course.sandbox.command import forget_bwrap_versions

    _probe.cache_clear()
    forget_bwrap_versions()
    if cache_dir is not None:
        with contextlib.suppress(OSError):
            os.unlink(cache_dir / LEVEL_CACHE_NAME)


LEVEL_CACHE_NAME = "sandbox-level.json"
LEVEL_CACHE_FORMAT = 1
MAX_LEVEL_CACHE_BYTES = 4096
# the kernel's switches for unprivileged user namespaces (bwrap needs them for a plain
# user) and this boot: changing one may change what bwrap can do
KERNEL_SWITCHES = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/random/boot_id",
)


def _signature(path: str | Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_mode, st.st_uid, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _switch(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(100).decode("ascii", errors="replace").strip()
    except OSError:
        return None


def probe_key(bwrap: str) -> str | None:
    """A digest of what the probe's answer depends on (None: something cannot be read,
    so nothing is remembered). Stat calls and a few /proc reads: no process started."""
    from tui_course import paths
    from tui_course.sandbox import command

    try:
        config = paths.site_config_path()
        account = command.sandbox_account()
        python = command.python_binary()
        numpy = [str(folder) for folder in command.numpy_dirs()]
        real = os.path.realpath(bwrap)
        parts = {
            "format": LEVEL_CACHE_FORMAT,
            "bwrap": [bwrap, real, _signature(real), _signature(os.path.dirname(real))],
            "site": [_signature(paths.SITE_CONFIG_PATH), str(config), _signature(config)],
            "account": [os.geteuid(), os.getegid(), account.uid, account.gid, account.name],
            "python": [python, _signature(python), sys.version, sys.base_prefix],
            "numpy": [[folder, _signature(folder)] for folder in numpy]
            + [_signature(os.path.join(numpy[0], "__init__.py")) if numpy else None],
            "sandbox": [
                _signature(Path(__file__).with_name(name))
                for name in ("command.py", "level.py", "harness.py", "limits.py")
            ],
            "kernel": [_switch(path) for path in KERNEL_SWITCHES],
        }
        text = json.dumps(parts, sort_keys=True)
    except (OSError, ValueError, TypeError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()


def _read_cached_probe(path: Path, key: str) -> tuple[int, ...] | None:
    """The bwrap version a matching cache file holds, or None (no file, not ours, not a
    regular file, writable by others, too large, damaged, or another key)."""
    from tui_course.paths import read_private_file

    data = read_private_file(path, MAX_LEVEL_CACHE_BYTES)
    if data is None:
        return None
    try:
        found = json.loads(data)
        version = found["bwrap_version"]
        if (
            found.get("format") != LEVEL_CACHE_FORMAT
            or found.get("key") != key
            or found.get("level") != Level.BWRAP.value
            or not isinstance(version, list)
            or not 0 < len(version) <= 4
            or not all(type(part) is int and 0 <= part < 10**6 for part in version)
        ):
            return None
        return tuple(version)
    except (ValueError, KeyError, TypeError, RecursionError):
        return None


def _write_cached_probe(cache_dir: Path, key: str, bwrap: str) -> None:
    """Remember a working bwrap (written whole, 0600, never through a link); any failure
    leaves nothing remembered."""
    from tui_course.paths import ensure_private_dir, write_file_safely
    from tui_course.sandbox.command import bwrap_version

    found = {
        "format": LEVEL_CACHE_FORMAT,
        "key": key,
        "level": Level.BWRAP.value,
        "bwrap_version": list(bwrap_version(bwrap)),
    }
    try:
        ensure_private_dir(cache_dir)
        write_file_safely(cache_dir / LEVEL_CACHE_NAME, json.dumps(found).encode(), mode=0o600)
    except OSError:
        return


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none), which confines files without bwrap."""
    import ctypes
    import platform

    if platform.machine() not in ("x86_64", "aarch64"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(444, None, 0, 1)  # landlock_create_ruleset(..., VERSION)
    return max(0, int(version))
