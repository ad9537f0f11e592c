"""Which sandbox this machine gives student code: bubblewrap, rlimits alone, or none.

One probe, cached per process: `doctor`, the CLI and the UI all ask here, so they
name the same level and the same fix.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from enum import StrEnum

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
def _probe(bwrap: str | None) -> LevelReport:
    try:
        import resource  # noqa: F401  (POSIX only)
    except ImportError:
        return LevelReport(Level.NONE, "this system has no POSIX resource limits")
    from tui_course.sandbox.command import probe_command, probe_uid, sandbox_account

    account = sandbox_account()
    runs_as = f"{account.name} (uid {account.uid})"
    if bwrap is None:
        detail = "bubblewrap (bwrap) is not installed"
        return LevelReport(Level.LIMITS, detail, INSTALL_FIX, runs_as=runs_as)
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


def sandbox_level() -> LevelReport:
    """The level checks run at on this machine and account (probed once per process)."""
    return _probe(find_bwrap(managed_server()))


def forget_probe() -> None:
    """Tests change PATH or $ATTN_TUI_BWRAP between probes."""
    _probe.cache_clear()


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
