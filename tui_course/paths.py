"""Where the app keeps its files. Nothing is created at import, only on first use."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import platformdirs

# the machine-wide site config: its presence makes this a managed (class) server
SITE_CONFIG_PATH = Path("/etc/attn-tui/config.toml")
SITE_CONFIG_ENV = "ATTN_TUI_CONFIG"  # another site config (a second class on one server)

APP_NAME = "attn-tui"
DATA_DIR_ENV = "ATTN_TUI_DATA_DIR"
CONTENT_DIR_ENV = "ATTN_TUI_CONTENT_DIR"


class UnknownUserPath(OSError):
    """`~name/...` where no account `name` exists (Path.expanduser raises RuntimeError)."""


def expand_user(value: str | os.PathLike[str]) -> Path:
    """`~` and `~user` resolved, or UnknownUserPath naming the path (never a traceback)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        text = os.fspath(value)
        user = text[1:].split("/", 1)[0]
        raise UnknownUserPath(errno.ENOENT, f"no user named {user!r}", text) from None


def site_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The site config in force: $ATTN_TUI_CONFIG, else the machine-wide one. Here, not in
    classroom.config, so the sandbox can ask without importing the classroom package."""
    env = os.environ if env is None else env
    chosen = env.get(SITE_CONFIG_ENV)
    if not chosen:
        return SITE_CONFIG_PATH
    try:
        return Path(chosen).expanduser()
    except RuntimeError:  # ~nosuchuser/...: read as written, and found missing
        return Path(chosen)


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """--data-dir wins, then $ATTN_TUI_DATA_DIR, then the platform's user data dir."""
    chosen = override or os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir(APP_NAME)
    return expand_user(chosen)


class LinkRefused(OSError):
    """A data folder or file is a symbolic link: attn-tui never writes through one (run as
    root on a student's folder, a link could aim its writes at another program's files)."""


def ensure_private_dir(path: Path) -> Path:
    """Create the folder (and missing parents) 0700 whatever the umask; leave an existing
    folder's mode alone (a shared 0775 class folder stays shared); refuse a symlink."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        _make_private_dirs(path)
        return path
    _check_is_real_dir(path, info)
    return path


def _check_is_real_dir(path: Path, info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise LinkRefused(errno.ELOOP, "is a symbolic link; attn-tui does not follow links", path)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "is not a folder", str(path))


def _make_private_dirs(path: Path) -> None:
    missing: list[Path] = []
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:  # another process made it first: fine if it is a real folder
            _check_is_real_dir(folder, os.lstat(folder))
            continue
        # The umask only removes bits; set exactly 0700 on what this call created, through an
        # fd opened without following links.
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            os.fchmod(fd, 0o700)
        finally:
            os.close(fd)


def create_private_file(path: Path) -> int:
    """Create a new file 0600 (never through a link, never over an existing file) and return
    a writable fd; raises FileExistsError if something is already there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    except BaseException:
        os.close(fd)
        raise
    return fd


def default_content_dir() -> Path:
    """The shipped course: inside the installed package, or the repo's top level."""
    env = os.environ.get(CONTENT_DIR_ENV)
    if env:
        return expand_user(env)
    packaged = Path(__file__).parent / "_content"
    if (packaged / "lessons").is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent


# write_file_safely's temporary file beside `name`, and the pattern its cleanup looks for.
_TEMPORARY = ".{name}.{token}.tmp"


def write_file_safely(path: Path, data: bytes, mode: int = 0o644) -> Path:
    """Write `data` to `path` whole, never through a link an attacker planted.

    The bytes go to a new file made with O_CREAT|O_EXCL|O_NOFOLLOW under a random name in
    the same folder (nothing there can be followed or reused), then rename() puts it in
    place: a symlink at `path` is replaced, never written through. `mode` is applied as
    given (0o600 for private files), the umask only narrowing it for shared ones.
    Raises OSError; no temporary file is left behind, and this account's temporaries for
    `path` that a killed writer left are removed once the new file is in place.
    """
    import secrets

    folder = path.parent
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(10):
        temporary = folder / _TEMPORARY.format(name=path.name, token=secrets.token_hex(6))
        try:
            fd = os.open(temporary, flags, mode)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))
    try:
        if mode & 0o077 == 0:
            os.fchmod(fd, mode)  # private: exactly this, whatever the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.rename(temporary, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _remove_stale_temporaries(path)
    return path


# A temporary file of write_file_safely older than this was left by a writer that was
# killed before its rename (a live write takes milliseconds).
STALE_TEMPORARY_SECONDS = 600


def _remove_stale_temporaries(path: Path) -> None:
    """Remove this account's temporary files for `path` (".NAME.<hex>.tmp" beside it) older
    than STALE_TEMPORARY_SECONDS: nothing else would ever remove them."""
    import glob
    import time

    for temporary in path.parent.glob(_TEMPORARY.format(name=glob.escape(path.name), token="*")):
        with contextlib.suppress(OSError):
            info = temporary.lstat()
            old = time.time() - info.st_mtime > STALE_TEMPORARY_SECONDS
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and old:
                temporary.unlink()


def read_private_file(path: Path, max_bytes: int) -> bytes | None:
    """A cache file this account wrote, or None: not there, a link, not a regular file,
    another owner's, readable or writable by others, or over `max_bytes` (even if it grew
    while read). Opened without blocking, checked on the opened fd, read to the cap."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_mode & 0o077
            or info.st_size > max_bytes
        ):
            return None
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > max_bytes else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
