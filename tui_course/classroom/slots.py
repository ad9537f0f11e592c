"""Training slots: at most N training children at once on the server, kernel facts only.

Everything lives in the queue folder (sticky, writable by all). A waiting run holds a
ticket file (`ticket-<random>.<server>`) with flock(LOCK_EX); a running run holds a run
file (`run-<random>.<server>`) the same way. Both are made under a hidden name, locked,
then renamed into place, so their ctime (which no user can set back) is when they joined
the line or started. The kernel drops a lock when its holder exits, however it exits
(kill -9, a dropped SSH session), so nothing is ever leaked.

The line is this server's by nature: a slot is a share of this machine's CPU, and who
holds a lock, and whether its training child lives, is read from this machine's /proc.
So where login servers share the class folder (NFS), each counts only the files named
for itself (this_server(): its host name), and removes only its own leftovers: another
server's runs, whose locks and processes this one cannot see, neither count here nor
look dead. A name without a server (made by an older version) counts as this server's.

What one student can do is bounded by what the kernel says, never by file names:

- the line is in ctime order (ties by inode), so a name like `ticket-0000` gains nothing;
- per account only the earliest `runs_per_user` tickets and runs count (default 1): a
  student's extra tickets, or files flock'ed from a shell, hold at most that many places;
- a run counts only while its lock holder, a process of the file's account, has a live
  training child of that account (`python -m tui_course.training`, not stopped; see
  holders): a file flocked from a shell holds no slot. Between winning a slot and
  starting its child a run has no child yet: such a run counts while its file is
  younger than STARTING_SECONDS, and for one looking process only during the first
  STARTING_SECONDS it sees it and for at most STARTING_PER_ACCOUNT runs of one account,
  so a shell that makes or touches files cannot hold a slot by starting over and over;
- a run older than the class's `max_run_minutes` (default 30) no longer counts, its age
  taken from its training child's start, which no one can set (a run file's ctime moves
  with every touch); the run itself is stopped by its own process at that time (see
  training.runner);
- with a `students_group` in class.toml, only that group's members count: the site
  config is machine-wide, and root's or a teacher's runs do not take a class slot;
- a waiter whose process is stopped (ctrl+z) is passed over until it wakes up, and one
  that could have taken a free slot for PASS_OVER_SECONDS and did not (a ticket flocked
  from a shell) is passed over by whoever saw that;
- which files are locked, and by which process, comes from one read of /proc/locks,
  and a file's owner and ctime from one lstat remembered per (name, inode): 50,000
  junk files cost a directory read when the folder changed, not 50,000 probes a look.

The slot files in `slots/` that older versions locked are no longer used: anyone who
can read a file can flock it, so a student with a shell could hold them all.
"""

from __future__ import annotations

import contextlib
import fcntl
import grp
import heapq
import os
import pwd
import re
import secrets
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from tui_course.classroom.config import (
    DEFAULT_MAX_RUN_MINUTES,
    ConfigError,
    SiteConfig,
    default_slots,
    load_class_config,
    load_site_config,
)
from tui_course.classroom.folder import QUEUE, SLOTS
from tui_course.classroom.holders import holder

SYSTEM_SLOTS_DIR = "attn-tui-slots"  # under the system temp folder when no class is set up
TICKET_PREFIX = "ticket-"
RUN_PREFIX = "run-"
STALE_SECONDS = 5.0  # kept for callers; a stopped waiter is now seen at once (/proc)
PROBES_PER_USER = 4  # files of another account looked at per look, beyond its allowance
MAX_LOCKS_BYTES = 1 << 20  # /proc/locks read per look (about 15,000 locks)
STARTING_SECONDS = 10.0  # a won run without its training child yet counts this long...
STARTING_PER_ACCOUNT = 3  # ...for this many runs of one account, per looking process
PASS_OVER_SECONDS = 5.0  # a waiter that could take a free slot this long and did not
_NAME = re.compile(r"^(ticket|run)-[0-9a-f]{24}(?:\.([A-Za-z0-9-]{1,63}))?\Z")
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_PROC_LOCKS = Path("/proc/locks")


def this_server() -> str:
    """This machine's name as queue file names carry it: the host name, letters, digits
    and '-' only (each login server sharing a class folder needs its own host name)."""
    name = re.sub(r"[^A-Za-z0-9-]", "-", os.uname().nodename)[:63]
    return name or "localhost"


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


def kernel_locks() -> dict[tuple[int, int, int], int] | None:
    """(device major, minor, inode) -> pid of every flock/POSIX lock on the machine, from
    /proc/locks; None where there is no such file (then each file is probed)."""
    try:
        with _PROC_LOCKS.open("rb") as handle:
            data = handle.read(MAX_LOCKS_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_LOCKS_BYTES:  # someone holds a flood of locks: probe our few files
        return None
    text = data.decode("ascii", errors="replace")
    held: dict[tuple[int, int, int], int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 6 or parts[1] == "->":  # "->": a process blocked waiting
            continue
        try:
            major, minor, inode = parts[5].split(":")
            held[(int(major, 16), int(minor, 16), int(inode))] = int(parts[4])
        except ValueError:
            continue
    return held


def _order(entry: QueueFile) -> tuple[int, int]:
    return entry.order


def _stopped(pid: int) -> bool:
    """The process is stopped (ctrl+z, SIGSTOP) according to /proc/PID/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    state = text.rsplit(")", 1)[-1].split()
    return bool(state) and state[0] in ("T", "t")


@dataclass(frozen=True)
class QueueFile:
    """A ticket or run file as the kernel sees it."""

    path: Path
    kind: str  # "ticket" | "run"
    uid: int
    ctime_ns: int
    inode: int
    dev: int
    pid: int | None = None  # the lock holder, where /proc/locks says
    started_ns: int | None = None  # a counted run: when its training child started
    starting: bool = False  # a counted run whose training child is not there yet

    @property
    def order(self) -> tuple[int, int]:
        return (self.ctime_ns, self.inode)


@dataclass
class _Listing:
    """The queue folder's files remembered per (name, inode): a look at an unchanged
    folder costs one stat, a changed one a directory read and an lstat per new name."""

    mtime_ns: int = -1
    trusted: bool = False
    files: dict[str, tuple[int, QueueFile]] = field(default_factory=dict)
    # per account, its tickets and its runs, each earliest first
    by_uid: dict[int, tuple[list[QueueFile], list[QueueFile]]] = field(default_factory=dict)
    hidden: dict[int, int] = field(default_factory=dict)  # files past that, per account
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class _Memory:
    """What one looking process remembers between looks: when it first saw each run
    without a training child, and which accounts are the class's students."""

    first_seen: dict[tuple[int, int, int | None], int] = field(default_factory=dict)
    starting_keys: dict[int, set[tuple[int, int, int | None]]] = field(default_factory=dict)
    members: dict[int, bool] = field(default_factory=dict)
    could_take: dict[tuple[int, int], int] = field(default_factory=dict)  # ticket -> since
    lock: threading.Lock = field(default_factory=threading.Lock)

    def idle_at_the_front(self, front: list[QueueFile], now: int) -> set[Path]:
        """The waiters of `front` (those a free slot is there for) that have been there
        for PASS_OVER_SECONDS without taking it: a real one looks every SLOT_POLL."""
        with self.lock:
            since = {(e.dev, e.inode): self.could_take.get((e.dev, e.inode), now) for e in front}
            self.could_take = since
        return {e.path for e in front if now - since[(e.dev, e.inode)] > PASS_OVER_SECONDS * 1e9}

    def starting(self, entry: QueueFile, now: int) -> bool:
        """Whether a childless run still counts: for STARTING_SECONDS from when this
        process first saw it, and for the first STARTING_PER_ACCOUNT runs of its account."""
        key = (entry.dev, entry.inode, entry.pid)
        with self.lock:
            keys = self.starting_keys.setdefault(entry.uid, set())
            if key not in keys:
                if len(keys) >= STARTING_PER_ACCOUNT:
                    return False
                keys.add(key)
                self.first_seen[key] = now
            return now - self.first_seen[key] < STARTING_SECONDS * 1e9


def _is_member(uid: int, gid: int) -> bool:
    """The account's primary group is `gid`, or the group lists it."""
    try:
        account = pwd.getpwuid(uid)
    except KeyError:
        return False
    if account.pw_gid == gid:
        return True
    try:
        return account.pw_name in grp.getgrgid(gid).gr_mem
    except KeyError:
        return False


@dataclass(frozen=True)
class QueueView:
    """One look at the line: counted runs and waiting tickets, first first."""

    running: list[QueueFile]
    waiting: list[QueueFile]
    ignored: int  # files not counted (over a user's allowance, stopped, over time, dead)


class Slot:
    """A held slot: the lock lives as long as this file descriptor."""

    def __init__(
        self,
        fd: int,
        number: int,
        path: Path | None = None,
        max_seconds: float | None = None,
    ) -> None:
        self.fd: int | None = fd
        self.number = number
        self.path = path
        self.max_seconds = max_seconds  # the class's cap on one run, enforced by the runner

    def release(self) -> None:
        if self.fd is not None:
            if self.path is not None:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            os.close(self.fd)
            self.fd = None


@dataclass(frozen=True)
class SlotState:
    slots: int
    in_use: int
    waiting: int
    unusable: int  # 1 when the queue folder cannot be used at all


@dataclass(frozen=True)
class TrainingSlots:
    slots_dir: Path  # kept for doctor and older callers; the locks live in queue_dir
    queue_dir: Path
    count: int
    create: bool = False  # the system folder
    runs_per_user: int = 1
    max_run_seconds: float | None = None
    students_gid: int | None = None  # only this group's members count (None: everyone)
    _listing: _Listing = field(default_factory=_Listing, compare=False, repr=False)
    _memory: _Memory = field(default_factory=_Memory, compare=False, repr=False)

    def counts_account(self, uid: int) -> bool:
        """A student of this class (with a students_group), or anyone (without one)."""
        if self.students_gid is None:
            return True
        memory = self._memory
        with memory.lock:
            known = memory.members.get(uid)
        if known is None:
            known = _is_member(uid, self.students_gid)
            with memory.lock:
                memory.members[uid] = known
        return known

    # what the kernel says

    def _scan(self) -> dict[int, tuple[list[QueueFile], list[QueueFile]]]:
        """Each account's tickets and runs, each earliest first."""
        listing = self._listing
        with listing.lock:
            try:
                before = os.stat(self.queue_dir).st_mtime_ns
            except OSError:
                return {}
            if before != listing.mtime_ns or not listing.trusted:
                self._rescan(listing)
                listing.hidden = {}
                by_uid: dict[int, tuple[list[QueueFile], list[QueueFile]]] = {}
                for _, entry in listing.files.values():
                    tickets, runs = by_uid.setdefault(entry.uid, ([], []))
                    (tickets if entry.kind == "ticket" else runs).append(entry)
                keep = self.runs_per_user + PROBES_PER_USER
                me = os.geteuid()
                for uid, (tickets, runs) in by_uid.items():
                    for own in (tickets, runs):
                        # another account's files past what a look reads are only counted
                        first = own if uid == me else heapq.nsmallest(keep, own, key=_order)
                        first.sort(key=_order)
                        extra = len(own) - len(first)
                        own[:] = first
                        listing.hidden[uid] = listing.hidden.get(uid, 0) + extra
                listing.by_uid = by_uid
                # a change within the clock's tick could hide behind the same mtime: trust
                # an unchanged mtime only once it is older than a tick
                listing.mtime_ns = before
                listing.trusted = time.time_ns() - before > 100_000_000
            return listing.by_uid

    def _rescan(self, listing: _Listing) -> None:
        kept: dict[str, tuple[int, QueueFile]] = {}
        try:
            entries = os.scandir(self.queue_dir)
        except OSError:
            listing.files = {}
            return
        server = this_server()
        with entries:
            for entry in entries:
                name = entry.name
                match = _NAME.match(name)
                if not match or match.group(2) not in (None, server):
                    continue  # junk, or another server's line: no system call
                inode = entry.inode()
                known = listing.files.get(name)
                if known is not None and known[0] == inode:
                    kept[name] = known
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                kind = "ticket" if name.startswith(TICKET_PREFIX) else "run"
                kept[name] = (
                    inode,
                    QueueFile(
                        Path(entry.path), kind, info.st_uid, info.st_ctime_ns, inode, info.st_dev
                    ),
                )
        listing.files = kept

    def view(self, me: QueueFile | None = None) -> QueueView:
        """Who runs and who waits, counting per account only what it is allowed."""
        per_user = dict(self._scan())
        if me is not None:
            tickets, runs = per_user.get(me.uid, ([], []))
            mine = tickets if me.kind == "ticket" else runs
            if all(entry.path != me.path for entry in mine):
                # renamed in the same clock tick as the last listing
                mine = sorted([*mine, me], key=lambda e: e.order)
                per_user[me.uid] = (mine, runs) if me.kind == "ticket" else (tickets, mine)
        locks = kernel_locks()
        now = time.time_ns()
        ignored = 0
        running: list[QueueFile] = []
        waiting: list[QueueFile] = []
        my_uid = os.geteuid()
        look = self.runs_per_user + PROBES_PER_USER
        ignored += sum(self._listing.hidden.values())
        for uid, (tickets, runs) in per_user.items():
            if not self.counts_account(uid):
                ignored += len(tickets) + len(runs)  # not a student of this class
                continue
            if uid != my_uid:
                # another account's files past its allowance and a few probes are never
                # looked at: junk costs nothing per look
                tickets, runs = tickets[:look], runs[:look]
            own = [*tickets, *runs]
            live_runs = self._training(self._live(runs, locks, uid == my_uid, me), uid, now)
            if self.max_run_seconds is not None:
                limit = now - int(self.max_run_seconds * 1e9)
                live_runs = [
                    e
                    for e in live_runs
                    if (e.started_ns or e.ctime_ns) >= limit or (me and e.path == me.path)
                ]
            counted = live_runs[: self.runs_per_user]
            running += counted
            allowance = self.runs_per_user - len(counted)
            live_tickets = self._live(tickets, locks, uid == my_uid, me)
            awake = [e for e in live_tickets if e.pid is None or not _stopped(e.pid)]
            waiting += awake[: max(allowance, 0)]
            ignored += len(own) - len(counted) - min(len(awake), max(allowance, 0))
        running.sort(key=lambda e: e.order)
        waiting.sort(key=lambda e: e.order)
        free = self.count - len(running)
        front = [e for e in waiting[: max(free, 0)] if e.uid != my_uid]
        idle = self._memory.idle_at_the_front(front, now)
        if idle:
            waiting = [e for e in waiting if e.path not in idle]
            ignored += len(idle)
        # never more than the slots: a run past them got in by a race it did not win
        ignored += max(len(running) - self.count, 0)
        return QueueView(running[: self.count], waiting, ignored)

    def _training(self, runs: list[QueueFile], uid: int, now: int) -> list[QueueFile]:
        """The locked runs that are training: held by a process of `uid` with a live
        training child (see holders), or by this process itself, or won a moment ago."""
        counted: list[QueueFile] = []
        for entry in runs:
            if entry.pid is None or entry.pid == os.getpid():
                # this process's own run, or no /proc/locks to name the holder: the lock
                counted.append(replace(entry, started_ns=entry.ctime_ns))
                continue
            seen = holder(entry.pid)
            if not seen.visible:  # /proc hides the holder (hidepid): the lock alone
                counted.append(replace(entry, started_ns=entry.ctime_ns))
            elif seen.uid != uid or seen.stopped:
                continue
            elif seen.child_started_ns is not None:
                counted.append(replace(entry, started_ns=seen.child_started_ns))
            elif now - entry.ctime_ns < STARTING_SECONDS * 1e9 and self._memory.starting(
                entry, now
            ):
                # won a moment ago (the file is new: an old one only a touch makes new,
                # which the memory's count per account stops)
                counted.append(replace(entry, started_ns=now, starting=True))
        return counted

    def _live(
        self,
        files: list[QueueFile],
        locks: dict[tuple[int, int, int], int] | None,
        mine: bool,
        me: QueueFile | None,
    ) -> list[QueueFile]:
        """The locked ones, earliest first; this user's dead files are removed. Another
        account's files are looked at only up to its allowance plus a few (junk it
        left cannot make every look expensive)."""
        live: list[QueueFile] = []
        budget = self.runs_per_user + PROBES_PER_USER
        for entry in files:
            if not mine and budget <= 0:
                break
            budget -= 1
            if me is not None and entry.path == me.path:
                live.append(me)
                continue
            if locks is not None:
                key = (os.major(entry.dev), os.minor(entry.dev), entry.inode)
                pid = locks.get(key)
                if pid is not None:
                    live.append(replace(entry, pid=pid))
                    continue
                held: bool | None = False
            else:
                held = _locked_by_someone(entry.path)
                if held:
                    live.append(entry)
                    continue
            if held is False and mine:
                with contextlib.suppress(OSError):
                    entry.path.unlink()  # our own leftover (a kill -9 mid-way)
        return live

    # the public side

    def state(self) -> SlotState:
        if not self.usable():
            return SlotState(self.count, 0, 0, 1)
        view = self.view()
        return SlotState(self.count, len(view.running), len(view.waiting), 0)

    def free(self) -> int:
        return max(self.count - len(self.view().running), 0)

    def try_take(self) -> Slot | None:
        """A slot now if one is free (no line): make a run file, then check that it is
        among the first `count` runs; two takers at once cannot both win."""
        view = self.view()
        mine = sum(1 for e in view.running if e.uid == os.geteuid())
        if len(view.running) >= self.count or mine >= self.runs_per_user:
            return None
        fd, entry = self._make(RUN_PREFIX)
        after = self.view(me=entry)
        if any(e.path == entry.path for e in after.running):
            # runs that started no later than this one; a tie in ctime (the clock ticks
            # coarsely) counts against both, so two takers at once can never both win
            ahead = sum(
                1 for e in after.running if e.path != entry.path and e.ctime_ns <= entry.ctime_ns
            )
            if ahead < self.count:
                return Slot(fd, ahead + 1, entry.path, self.max_run_seconds)
        with contextlib.suppress(OSError):
            entry.path.unlink()
        os.close(fd)
        return None

    def usable(self) -> bool:
        """The queue folder is there and this account may add to it."""
        return self.queue_dir.is_dir() and os.access(self.queue_dir, os.W_OK | os.X_OK)

    def _make(self, prefix: str) -> tuple[int, QueueFile]:
        """A locked file under its final name; its ctime is the rename's."""
        name = f"{prefix}{secrets.token_hex(12)}.{this_server()}"
        hidden = self.queue_dir / f".{name}"
        # read-write: over NFS an exclusive flock is a POSIX write lock, which needs it
        fd = os.open(hidden, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        path = self.queue_dir / name
        try:
            os.fchmod(fd, 0o644)  # readable, so others without /proc/locks can probe it
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(hidden, path)
            info = os.fstat(fd)
        except OSError:
            os.close(fd)
            with contextlib.suppress(OSError):
                hidden.unlink()
            raise
        kind = "ticket" if prefix == TICKET_PREFIX else "run"
        return fd, QueueFile(
            path, kind, info.st_uid, info.st_ctime_ns, info.st_ino, info.st_dev, os.getpid()
        )

    # the line

    def join(self) -> Ticket:
        """Take a ticket: made under a hidden name, locked, then renamed into the line."""
        fd, entry = self._make(TICKET_PREFIX)
        return Ticket(self, fd, entry)

    def _live_tickets(self) -> list[Path]:
        """Counted waiters, first in line first (for older callers and tests)."""
        return [entry.path for entry in self.view().waiting]


class Ticket:
    def __init__(self, slots: TrainingSlots, fd: int, entry: QueueFile) -> None:
        self.slots = slots
        self.fd: int | None = fd
        self.entry = entry
        self.path = entry.path

    def _view(self) -> QueueView:
        return self.slots.view(me=self.entry)

    def position(self) -> int:
        """1 = next in line. A ticket this account may not hold yet (its runs are at
        its allowance) is behind everyone."""
        waiting = [e.path for e in self._view().waiting]
        return waiting.index(self.path) + 1 if self.path in waiting else len(waiting) + 1

    def try_take(self) -> Slot | None:
        """A slot when fewer counted waiters are ahead of this one than slots are free."""
        view = self._view()
        waiting = [e.path for e in view.waiting]
        if self.path not in waiting:
            return None  # over this account's allowance: wait for its own run to end
        free = self.slots.count - len(view.running)
        if waiting.index(self.path) + 1 > free:
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
    """The machine-wide lock folder: root's, or refused. A folder a student made first
    could be emptied or replaced by them, stalling everyone's training."""
    folder = site.slots_dir or Path(tempfile.gettempdir()) / SYSTEM_SLOTS_DIR
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        if not make:
            raise FileNotFoundError(2, "not made yet", str(folder)) from None
        if os.geteuid() != 0:
            # only root may make it; until then training is not throttled (doctor says so)
            raise FileNotFoundError(2, "not made yet (root makes it)", str(folder)) from None
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o1777)
        folder.chmod(0o1777)  # umask took the bits away: every user must be able to queue
        info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{folder}: the training-slot folder is not a folder (tell an admin)")
    if info.st_uid != 0:
        import pwd

        try:
            owner = pwd.getpwuid(info.st_uid).pw_name
        except KeyError:
            owner = f"uid {info.st_uid}"
        raise ConfigError(
            f"{folder}: the training-slot folder belongs to {owner}, not root; an admin"
            " removes it, or sets slots_dir (a root-made folder, mode 1777) or class_dir"
            " in the site config"
        )
    if info.st_mode & 0o002 and not info.st_mode & stat.S_ISVTX:
        raise ConfigError(f"{folder}: the training-slot folder lacks the sticky bit (chmod 1777)")
    return folder


def training_slots(site: SiteConfig | None = None, make: bool = True) -> TrainingSlots:
    """The slots of this server: the class folder's, else a root-owned system folder.

    Raises ConfigError for a broken site config or class.toml, or a system folder that
    is not root's; FileNotFoundError when there is no system folder yet (no throttle)."""
    site = load_site_config() if site is None else site
    if site.class_dir is not None:
        slots = class_slots(site.class_dir, site)
        if slots.counts_account(os.geteuid()):
            return slots
        # root, a teacher, a student of another class: not this class's, so not its slots
    folder = _system_folder(site, make)
    minutes = site.max_run_minutes or DEFAULT_MAX_RUN_MINUTES
    return TrainingSlots(
        folder,
        folder,
        site.training_slots or default_slots(),
        create=True,
        runs_per_user=site.runs_per_user or 1,
        max_run_seconds=minutes * 60.0,
    )


def class_slots(class_dir: Path, site: SiteConfig) -> TrainingSlots:
    """A class folder's slots, whoever looks (the teacher's `class status` too).
    Raises ConfigError for a broken class.toml."""
    settings = load_class_config(class_dir)
    count = settings.training_slots or site.training_slots or default_slots()
    minutes = settings.max_run_minutes or site.max_run_minutes or DEFAULT_MAX_RUN_MINUTES
    gid = None
    if settings.students_group:
        try:
            gid = grp.getgrnam(settings.students_group).gr_gid
        except KeyError:
            gid = None  # doctor --teacher and the report say the group is missing
    return TrainingSlots(
        class_dir / SLOTS,
        class_dir / QUEUE,
        count,
        runs_per_user=settings.runs_per_user or site.runs_per_user or 1,
        max_run_seconds=minutes * 60.0,
        students_gid=gid,
    )
