"""The progress file: opened safely, read and written under guards that never crash the app.

Choices that matter on a shared lab server:
- journal_mode=DELETE (no WAL): WAL needs shared memory, which network home
  directories (NFS) do not give reliably.
- synchronous=FULL and one transaction per write: when the screen says
  "Correct", the attempt is already on disk; kill -9 loses nothing.
- busy timeouts: two sessions of the same student wait for each other briefly;
  a lock held for longer fails that one write with a notice, never the app.
- a write that fails (full disk, quota, read-only file, long lock) is reported
  in one line and the student goes on; only the answer write raises, so the
  quiz can say the answer was not saved instead of showing a verdict.
- a file is moved aside only when SQLite says it is damaged (SQLITE_CORRUPT,
  SQLITE_NOTADB), under a lock file so two processes never both move; any
  other failure to open leaves the file alone and the session runs in memory.
- links are refused, and modes of files and folders the app did not create
  are left alone; a read-only file or folder means a read-only session.

The queries themselves are the store's (progress/store.py); the tables are schema.py's.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from tui_course.paths import LinkRefused, create_private_file, ensure_private_dir
from tui_course.progress import schema
from tui_course.progress.store_errors import (
    CONTENTION,
    DAMAGED,
    Damaged,
    QueryError,
    Raced,
    StoreError,
    StoreWriteError,
    Unusable,
    describe,
    sqlite_code,
)

DB_NAME = "progress.db"
LOCK_NAME = DB_NAME + ".lock"  # held only while a damaged file is moved aside
OPEN_TIMEOUT_MS = 5000  # the app's start-up (no screen yet) waits this long for a lock
BATCH_TIMEOUT_MS = 10000  # commands (`attn-tui progress`): no screen to freeze, so wait longer
ANSWER_TIMEOUT_MS = 2000  # an answer must be on disk before its verdict shows
READ_TIMEOUT_MS = 500  # in the app: a stale outline mark is better than a frozen screen
QUICK_TIMEOUT_MS = 200  # settings, lesson marks, runs: never worth freezing the screen for
PROBLEM_REPEAT_SECONDS = 60.0  # the same write problem is reported once a minute at most
PENDING_REPORT_SECONDS = 10.0  # queued writes still blocked after this are reported
RETRY_SECONDS = 2.0  # queued writes are retried at most this often


class _GuardedConnection(sqlite3.Connection):
    """Every statement on the store's connection fails as a StoreError (one line), even a
    query written without the store's guards, so no caller can crash on a raw sqlite3 error
    by forgetting one; `except sqlite3.Error` still sees it, with its code."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except QueryError:
            raise
        except sqlite3.Error as error:
            wrapped = QueryError(f"Progress store: {describe(error)}.")
            wrapped.sqlite_errorcode = getattr(error, "sqlite_errorcode", None) or 0
            raise wrapped from error


def _open_memory() -> sqlite3.Connection:
    return sqlite3.connect(":memory:", isolation_level=None, factory=_GuardedConnection)


def _uri(path: Path, read_only: bool) -> str:
    return f"file:{urllib.parse.quote(str(path.absolute()))}?mode={'ro' if read_only else 'rw'}"


def _connect(path: Path, read_only: bool, timeout_ms: int) -> sqlite3.Connection:
    conn = sqlite3.connect(
        _uri(path, read_only),
        uri=True,
        timeout=timeout_ms / 1000,
        isolation_level=None,
        factory=_GuardedConnection,
    )
    # Damaged text must not stop a report: undecodable bytes show as U+FFFD.
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    try:
        conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
        if not read_only:
            conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA synchronous = FULL")
        rows = conn.execute("PRAGMA quick_check").fetchall()
        if [row[0] for row in rows] != ["ok"]:
            first = str(rows[0][0]).replace("*** in database main ***", "") if rows else ""
            raise Damaged(f"the progress file is damaged: {' '.join(first.split())[:80]}")
    except sqlite3.Error as error:
        conn.close()
        if sqlite_code(error) in DAMAGED:
            raise Damaged(describe(error)) from error
        raise
    except UnicodeDecodeError:  # SQLite's message quoted bytes from the file; its code is lost
        conn.close()
        raise Unusable("the progress file holds unreadable text (it may be damaged)") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


class ProgressFile:
    """The open progress file and its guards: what every store query runs through.

    Reads raise StoreError (one line); writes are essential (raise StoreWriteError), or
    deferrable (queued while another session holds the lock), or else reported once through
    `on_problem` and `problem`. The store's queries (progress/store.py) build on this."""

    def __init__(self, directory: Path, *, interactive: bool = False) -> None:
        """Open (or create) the store. A file that cannot be written but can be read gives a
        read-only session (`saving` is False, `notice` says why). One that cannot be used at
        all is left alone and raises StoreError; `interactive` (the app: it must start, and a
        person is waiting on the screen) gives an empty session in memory instead, and reads
        give up sooner on a lock. A symlinked folder or file always raises."""
        self.directory = directory
        self.path = directory / DB_NAME
        self.notice: str | None = None
        self.saving = True
        self.on_problem: Callable[[str], None] | None = None  # the UI shows write problems
        self.problem: str | None = None  # the last write problem, for callers without a UI
        self._reported: tuple[str, float] = ("", 0.0)
        self._open_timeout_ms = OPEN_TIMEOUT_MS if interactive else BATCH_TIMEOUT_MS
        self._timeout_ms = self._open_timeout_ms
        self._read_timeout_ms = READ_TIMEOUT_MS if interactive else BATCH_TIMEOUT_MS
        self._pending: list[tuple[str, tuple[object, ...]]] = []  # writes waiting out a lock
        self._pending_since: float | None = None
        self._retry_at = 0.0
        self._interactive = interactive
        self._read_retry_at = 0.0
        try:
            self._conn = self._open()
        except LinkRefused as error:
            raise StoreError(f"{error.filename} {error.strerror}") from None
        except Unusable as reason:
            if not interactive:
                raise StoreError(f"{reason}") from None
            self.saving = False
            self.notice = f"Your progress is not saved this session: {reason}."
            self._conn = self._in_memory()

    # opening

    def _open(self) -> sqlite3.Connection:
        """Open the file; an open that raced another session's move-aside waits for that
        session's lock and tries again (three times at most)."""
        for _ in range(2):
            try:
                return self._open_once()
            except Raced:
                self._wait_for_move_aside()
        return self._open_once()

    def _wait_for_move_aside(self) -> None:
        with contextlib.suppress(OSError):
            lock = os.open(
                self.directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600
            )
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)  # returns once a move in progress is done
            finally:
                os.close(lock)

    def _open_once(self) -> sqlite3.Connection:
        try:
            ensure_private_dir(self.directory)
            info = self._db_info()
            read_only = self._read_only_reason(info)
            if info is None and read_only is None:
                info = self._create_db()
        except LinkRefused:
            raise
        except OSError as error:
            raise Unusable(describe(error)) from None
        if info is None:
            raise Unusable(f"{read_only} and there is no progress file yet")
        try:
            if read_only is not None:
                return self._read_only_copy(read_only)
            try:
                return self._open_file(info)
            except Damaged as damage:
                moved = self._move_aside(_identity(info))
                conn = self._open_file(self._db_info() or self._create_db())
                if moved is not None:
                    self.notice = (
                        f"Your progress file could not be read ({damage}); it was moved to"
                        f" {moved.name} and a fresh one was started."
                    )
                return conn
        except Damaged as damage:
            raise Unusable(str(damage)) from None
        except LinkRefused:
            raise
        except (sqlite3.Error, OSError) as error:
            if isinstance(error, sqlite3.Error) and sqlite_code(error) == sqlite3.SQLITE_CANTOPEN:
                raise Raced(describe(error)) from None  # it vanished between lstat and open
            raise Unusable(describe(error)) from None

    def _db_info(self) -> os.stat_result | None:
        """The file's lstat, or None if there is none; refuses a link or a non-file."""
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise LinkRefused(
                errno.ELOOP, "is a symbolic link; attn-tui does not follow links", str(self.path)
            )
        if not stat.S_ISREG(info.st_mode):
            raise Unusable(f"{self.path} is not a file")
        return info

    def _read_only_reason(self, info: os.stat_result | None) -> str | None:
        """A file or folder without its owner's write bit was made read-only on purpose:
        honour it even for root, who could write anyway."""
        if info is not None and not info.st_mode & stat.S_IWUSR:
            return f"{self.path.name} is read-only (mode {stat.S_IMODE(info.st_mode):04o})"
        folder = os.stat(self.directory)
        if not folder.st_mode & stat.S_IWUSR or not os.access(self.directory, os.W_OK):
            return f"the folder {self.directory} is read-only"
        if info is not None and not os.access(self.path, os.W_OK):
            # access() is False for a file that is no longer there too: another session that
            # moved a damaged file aside in between is a race, not a read-only file (taking
            # it for one kept this session's answers in memory only).
            now = self._db_info()
            if now is None or _identity(now) != _identity(info):
                raise Raced(f"{self.path} was replaced while it was being checked")
            return f"{self.path.name} is read-only for you"
        return None

    def _create_db(self) -> os.stat_result:
        with contextlib.suppress(FileExistsError):  # another session created it first
            os.close(create_private_file(self.path))
        info = self._db_info()
        if info is None:  # made and removed again by someone else in between
            raise Raced(f"{self.path} vanished while it was being created")
        return info

    def _open_file(self, info: os.stat_result) -> sqlite3.Connection:
        conn = _connect(self.path, read_only=False, timeout_ms=self._open_timeout_ms)
        try:
            now = self._db_info()
            if now is None or _identity(now) != _identity(info):
                raise Raced(f"{self.path} was replaced while it was being opened")
            try:
                schema.prepare_schema(conn)
            except sqlite3.Error as error:
                if sqlite_code(error) == sqlite3.SQLITE_FULL:  # no other session can fill it either
                    self._forget_if_empty(info)
                raise
        except BaseException:
            conn.close()
            raise
        return conn

    def _forget_if_empty(self, info: os.stat_result) -> None:
        """A file that could not be filled for a full disk is not left behind. Only then: a
        fresh file is empty until the first session's schema is committed, and another
        session may already be writing in it (a busy or vanished journal is not a reason
        to remove it: that session's answers would go to a file no longer there)."""
        with contextlib.suppress(OSError):
            now = os.lstat(self.path)
            if now.st_size == 0 and _identity(now) == _identity(info):
                os.unlink(self.path)

    def _read_only_copy(self, reason: str) -> sqlite3.Connection:
        """Read the file, then work on a copy in memory: the student sees their progress,
        and this session's changes are kept until they quit, never written."""
        source = _connect(self.path, read_only=True, timeout_ms=self._open_timeout_ms)
        try:
            copy = _open_memory()
            source.backup(copy)
        finally:
            source.close()
        schema.prepare_schema(copy)
        self.saving = False
        self.notice = f"Your progress is read-only this session: {reason}."
        return copy

    @staticmethod
    def _in_memory() -> sqlite3.Connection:
        conn = _open_memory()
        schema.migrate(conn)
        return conn

    def _open_lock(self) -> int:
        """The lock file held while a damaged file is moved aside."""
        return os.open(self.directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)

    def _move_aside(self, identity: tuple[int, int]) -> Path | None:
        """Move the damaged file (and its journal) to a new name, never over another file.
        Under an exclusive lock, and only if the file is still the one found damaged: a
        second process that found it too sees a new file and just opens it (returns None)."""
        lock = self._open_lock()
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            current = self._db_info()
            if current is None or _identity(current) != identity:
                return None
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            base = f"{DB_NAME}.unreadable-{stamp}"
            # The journal first, while the damaged file still holds the name: once that is
            # moved, another session may create the fresh file and its own journal, which
            # must stay where it is (moving it lost that session's answers).
            journal = self.path.with_name(DB_NAME + "-journal")
            if os.path.lexists(journal) and stat.S_ISREG(os.lstat(journal).st_mode):
                self._keep_under_new_name(journal, base + "-journal")
            target = self._keep_under_new_name(self.path, base)
            self._create_db()
            return target
        finally:
            os.close(lock)

    def _keep_under_new_name(self, source: Path, base: str) -> Path:
        """link() then unlink(): the new name is never an existing file's."""
        for counter in range(1000):
            target = source.with_name(base if counter == 0 else f"{base}-{counter}")
            try:
                os.link(source, target, follow_symlinks=False)
            except FileExistsError:
                continue
            except OSError as error:  # a file system without hard links
                if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                    raise
                if os.path.lexists(target):
                    continue
                os.rename(source, target)
                return target
            os.unlink(source)
            return target
        raise Unusable(f"too many unreadable copies of {DB_NAME} in {self.directory}")

    def close(self) -> None:
        """Queued writes get one last, longer chance before the file is closed."""
        if self._pending and not self._flush_pending(ANSWER_TIMEOUT_MS, force=True):
            self.problem = f"{len(self._pending)} setting(s) not saved: the file stayed locked."
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Several writes that stand or fall together (an attempt and its review card).
        Writes inside must raise on failure (essential ones), so the whole is rolled back."""
        self._timeout(ANSWER_TIMEOUT_MS)
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreWriteError(f"Progress not saved: {describe(error)}.") from error
        try:
            yield
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise

    # guarded reads and writes

    def _timeout(self, milliseconds: int) -> None:
        if self._timeout_ms != milliseconds:
            self._conn.execute(f"PRAGMA busy_timeout = {milliseconds}")
            self._timeout_ms = milliseconds

    def _write(
        self,
        sql: str,
        args: Sequence[object] = (),
        *,
        essential: bool = False,
        deferrable: bool = True,
    ) -> sqlite3.Cursor | None:
        """One committed statement. An essential write (an answer) waits up to
        ANSWER_TIMEOUT_MS and raises StoreWriteError. Any other never raises: a deferrable
        one (a setting, a mark) that meets another session's lock waits only QUICK_TIMEOUT_MS
        and is queued, then retried before a later write (every RETRY_SECONDS at most) and at
        close, so a long lock costs the screen a fifth of a second now and then; other
        failures are reported once."""
        if essential or not deferrable:
            timeout = ANSWER_TIMEOUT_MS
        else:
            timeout = QUICK_TIMEOUT_MS
            if not self._flush_pending():
                self._pending.append((sql, tuple(args)))
                return None
        try:
            return self._execute(sql, args, timeout)
        except sqlite3.Error as error:
            message = f"Progress not saved: {describe(error)}."
            if essential:
                raise StoreWriteError(message) from error
            if deferrable and sqlite_code(error) in CONTENTION:
                self._pending.append((sql, tuple(args)))
                self._retry_at = time.monotonic() + RETRY_SECONDS
                self._pending_since = self._pending_since or time.monotonic()
            else:
                self._report(message)
            return None

    def _execute(self, sql: str, args: Sequence[object], timeout: int) -> sqlite3.Cursor:
        """In autocommit mode a failed statement leaves nothing open; inside a caller's
        transaction, rolling back is the caller's decision."""
        self._timeout(timeout)
        return self._conn.execute(sql, args)

    def _flush_pending(self, timeout: int = QUICK_TIMEOUT_MS, force: bool = False) -> bool:
        """Retry queued writes in order (at most every RETRY_SECONDS, unless forced);
        True when none is left."""
        if self._pending and not force and time.monotonic() < self._retry_at:
            return False
        while self._pending:
            sql, args = self._pending[0]
            try:
                self._execute(sql, args, timeout)
            except sqlite3.Error as error:
                if sqlite_code(error) not in CONTENTION:
                    self._pending.pop(0)  # it will not succeed by waiting: say so, drop it
                    self._report(f"Progress not saved: {describe(error)}.")
                    continue
                self._retry_at = time.monotonic() + RETRY_SECONDS
                waited = time.monotonic() - (self._pending_since or time.monotonic())
                if waited > PENDING_REPORT_SECONDS:
                    self._report(f"Progress not saved yet: {describe(error)}.")
                return False
            self._pending.pop(0)
        self._pending_since = None
        return True

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        """Rows, or StoreError with one line (a long lock, a page damaged since opening)."""
        # Just after a read met a lock, the next ones do not wait again for a while.
        backing_off = time.monotonic() < self._read_retry_at
        try:
            self._timeout(0 if backing_off else self._read_timeout_ms)
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as error:
            if self._interactive and sqlite_code(error) in CONTENTION and not backing_off:
                self._read_retry_at = time.monotonic() + RETRY_SECONDS
            raise StoreError(f"Progress could not be read: {describe(error)}.") from error

    def _report(self, message: str) -> None:
        self.problem = message
        last, when = self._reported
        now = time.monotonic()
        if message == last and now - when < PROBLEM_REPEAT_SECONDS:
            return
        self._reported = (message, now)
        if self.on_problem is not None:
            self.on_problem(message)
