"""Training slots: at most N training children at once on the server, kernel locks only.

A slot is a file (`slot-1` .. `slot-N`) held with flock(LOCK_EX) for as long as the
run lasts; the kernel drops the lock when the holder exits, however it exits (kill -9,
a dropped SSH session), so a slot is never leaked. Waiting runs hold a ticket file in
the queue folder the same way, named by the time they joined, so the line is in
arrival order. A waiter may take a slot only when fewer waiters are ahead of it than
slots are free. Waiters touch their ticket at every look; one not touched for
STALE_SECONDS (a stopped process: ctrl+z) is passed over until it wakes up.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tui_course.classroom.config import (
    SiteConfig,
    default_slots,
    load_class_config,
    load_site_config,
)
from tui_course.classroom.folder import QUEUE, SLOTS, slot_name

SYSTEM_SLOTS_DIR = "attn-tui-slots"  # under the system temp folder when no class is set up
TICKET_PREFIX = "ticket-"
STALE_SECONDS = 5.0  # waiters look every quarter second
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _locked_by_someone(path: Path) -> bool | None:
    """True when another open file holds a lock on `path`; None when it cannot be opened."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None
    finally:
        os.close(fd)  # closing drops the probe's own lock
    return False


class Slot:
    """A held slot: the lock lives as long as this file descriptor."""

    def __init__(self, fd: int, number: int) -> None:
        self.fd: int | None = fd
        self.number = number

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass(frozen=True)
class SlotState:
    slots: int
    in_use: int
    waiting: int
    unusable: int  # slot files that are missing or cannot be opened


@dataclass(frozen=True)
class TrainingSlots:
    slots_dir: Path
    queue_dir: Path
    count: int
    create: bool = False  # the system folder: slot files are made on first use

    def _slot_path(self, number: int) -> Path:
        return self.slots_dir / slot_name(number)

    def _open_slot(self, number: int) -> int | None:
        flags = _OPEN_FLAGS | (os.O_CREAT if self.create else 0)
        try:
            return os.open(self._slot_path(number), flags, 0o644)
        except OSError:
            return None

    def state(self) -> SlotState:
        in_use = unusable = 0
        for number in range(1, self.count + 1):
            held = _locked_by_someone(self._slot_path(number))
            if held is None:
                if self.create and not self._slot_path(number).exists():
                    continue  # not made yet: free
                unusable += 1
            elif held:
                in_use += 1
        return SlotState(self.count, in_use, len(self._live_tickets()), unusable)

    def free(self) -> int:
        state = self.state()
        return state.slots - state.in_use - state.unusable

    def try_take(self) -> Slot | None:
        for number in range(1, self.count + 1):
            fd = self._open_slot(number)
            if fd is None:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return Slot(fd, number)
        return None

    def usable(self) -> bool:
        """At least one slot file can be opened: otherwise waiting would never end."""
        for number in range(1, self.count + 1):
            fd = self._open_slot(number)
            if fd is not None:
                os.close(fd)
                return True
        return False

    # the line

    def join(self) -> Ticket:
        """Take a ticket: made under a hidden name, locked, then renamed into the line."""
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(6)}"
        hidden = self.queue_dir / f".{TICKET_PREFIX}{name}"
        fd = os.open(hidden, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            os.fchmod(fd, 0o644)  # readable, so others can probe its lock
            fcntl.flock(fd, fcntl.LOCK_EX)
            path = self.queue_dir / f"{TICKET_PREFIX}{name}"
            hidden.rename(path)
        except OSError:
            os.close(fd)
            with contextlib.suppress(OSError):
                hidden.unlink()
            raise
        return Ticket(self, fd, path)

    def _live_tickets(self) -> list[Path]:
        """Tickets whose holder is alive, first in line first. Dead ones are removed
        when this user may (their own, or any for the folder's owner)."""
        live: list[tuple[str, Path]] = []
        fresh = time.time_ns() - int(STALE_SECONDS * 1e9)
        try:
            entries = list(os.scandir(self.queue_dir))
        except OSError:
            return []
        for entry in entries:
            if not entry.name.startswith(TICKET_PREFIX):
                continue
            path = Path(entry.path)
            held = _locked_by_someone(path)
            if held:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_mtime_ns >= fresh:
                    live.append((entry.name, path))
            elif held is False:
                with contextlib.suppress(OSError):
                    path.unlink()
        return [path for _, path in sorted(live)]


class Ticket:
    def __init__(self, slots: TrainingSlots, fd: int, path: Path) -> None:
        self.slots = slots
        self.fd: int | None = fd
        self.path = path

    def position(self) -> int:
        """1 = next in line."""
        if self.fd is not None:
            os.utime(self.fd)  # still here: a ticket left untouched is passed over
        live = self.slots._live_tickets()
        return live.index(self.path) + 1 if self.path in live else len(live) + 1

    def try_take(self) -> Slot | None:
        """A slot when fewer waiters are ahead of this one than slots are free."""
        if self.position() > self.slots.free():
            return None
        return self.slots.try_take()

    def leave(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None


def _system_folder(site: SiteConfig, make: bool) -> Path:
    folder = site.slots_dir or Path(tempfile.gettempdir()) / SYSTEM_SLOTS_DIR
    if not make:
        if not folder.is_dir():
            raise FileNotFoundError(2, "not made yet", str(folder))
        return folder
    try:
        folder.mkdir(mode=0o1777)
        folder.chmod(0o1777)  # umask took the bits away: every user must be able to queue
    except FileExistsError:
        pass
    return folder


def training_slots(site: SiteConfig | None = None, make: bool = True) -> TrainingSlots:
    """The slots of this server: the class folder's, else a system folder.

    Raises ConfigError for a broken site config or class.toml, OSError for a folder
    that cannot be made."""
    site = load_site_config() if site is None else site
    if site.class_dir is not None:
        settings = load_class_config(site.class_dir)
        count = settings.training_slots or site.training_slots or default_slots()
        return TrainingSlots(site.class_dir / SLOTS, site.class_dir / QUEUE, count)
    folder = _system_folder(site, make)
    return TrainingSlots(folder, folder, site.training_slots or default_slots(), create=True)
