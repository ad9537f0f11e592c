"""The progress store: one SQLite file in the user's data directory.

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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.content.code_model import MAX_CODE_BYTES, CodeAttempt
from tui_course.paths import LinkRefused, create_private_file, ensure_private_dir
from tui_course.progress.scores import AttemptRow as AttemptRow
from tui_course.progress.scores import QuizStats as QuizStats
from tui_course.progress.scores import quiz_stats

if TYPE_CHECKING:
    from tui_course.progress.records import CodeCheckRow, FailedTrainingRecord, TrainingRecord

SCHEMA_VERSION = 5
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
_CONTENTION = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})

_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    quiz_id TEXT NOT NULL,
    total INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    correct INTEGER
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id INTEGER REFERENCES runs(id),
    quiz_id TEXT NOT NULL,
    question_index INTEGER NOT NULL,
    answer TEXT NOT NULL,
    correct INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_by_quiz ON attempts (quiz_id, question_index);
CREATE TABLE IF NOT EXISTS lessons (
    lesson_id TEXT PRIMARY KEY,
    first_opened_at TEXT NOT NULL,
    done_at TEXT
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

# v2: every attempt says how it was made, so scores can be derived from rows alone.
# A v1 row is filled in from what v1 did: a run's first attempt at a question is try 1,
# later ones are retries after the key had been shown (v1 showed it after any wrong
# answer), the earliest run of a quiz is its first pass, later runs are retries.
_MIGRATE_V1_TO_V2 = """
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'first';
ALTER TABLE attempts ADD COLUMN verdict TEXT NOT NULL DEFAULT 'wrong';
ALTER TABLE attempts ADD COLUMN try_number INTEGER NOT NULL DEFAULT 1;
ALTER TABLE attempts ADD COLUMN hints_seen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN revealed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN seconds REAL;
ALTER TABLE attempts ADD COLUMN pass_kind TEXT NOT NULL DEFAULT 'first';
ALTER TABLE attempts ADD COLUMN final INTEGER NOT NULL DEFAULT 1;
UPDATE runs SET kind = 'retry'
    WHERE id > (SELECT MIN(r.id) FROM runs AS r WHERE r.quiz_id = runs.quiz_id);
UPDATE attempts SET
    verdict = CASE correct WHEN 1 THEN 'right' ELSE 'wrong' END,
    pass_kind = COALESCE((SELECT kind FROM runs WHERE runs.id = attempts.run_id), 'first'),
    try_number = (
        SELECT COUNT(*) FROM attempts AS a
        WHERE a.run_id IS attempts.run_id AND a.quiz_id = attempts.quiz_id
          AND a.question_index = attempts.question_index AND a.id <= attempts.id
    ),
    final = CASE WHEN correct = 1 OR NOT EXISTS (
        SELECT 1 FROM attempts AS a
        WHERE a.run_id IS attempts.run_id AND a.quiz_id = attempts.quiz_id
          AND a.question_index = attempts.question_index AND a.id > attempts.id
    ) THEN 1 ELSE 0 END;
UPDATE attempts SET revealed = 1 WHERE try_number > 1;
CREATE INDEX IF NOT EXISTS attempts_by_run ON attempts (run_id, question_index);
CREATE TABLE IF NOT EXISTS review_cards (
    quiz_id TEXT NOT NULL,
    question_index INTEGER NOT NULL,
    card TEXT NOT NULL,
    due TEXT NOT NULL,
    PRIMARY KEY (quiz_id, question_index)
);
"""

# v3: a code question's check keeps the code as typed (up to 20 KB), its sha256, the
# named outcome, the mistake recognised, the cases failed, the sandbox level and the time.
_MIGRATE_V2_TO_V3 = """
ALTER TABLE attempts ADD COLUMN code TEXT;
ALTER TABLE attempts ADD COLUMN code_sha256 TEXT;
ALTER TABLE attempts ADD COLUMN code_outcome TEXT;
ALTER TABLE attempts ADD COLUMN code_mistake INTEGER;
ALTER TABLE attempts ADD COLUMN code_cases_failed TEXT;
ALTER TABLE attempts ADD COLUMN code_sandbox TEXT;
ALTER TABLE attempts ADD COLUMN code_seconds REAL;
"""

# v4: every finished training run (the lab's or `attn-tui train`'s), so the lab's comparison
# table and `attn-tui progress` see runs of earlier sessions. Options, the per-epoch curves and
# the trained-attention summary are JSON: they are read back whole, never queried into.
_MIGRATE_V3_TO_V4 = """
CREATE TABLE IF NOT EXISTS training_runs (
    id INTEGER PRIMARY KEY,
    finished_at TEXT NOT NULL,
    source TEXT NOT NULL,
    options TEXT NOT NULL,
    params INTEGER NOT NULL,
    test_accuracy REAL NOT NULL,
    test_loss REAL NOT NULL,
    seconds REAL NOT NULL,
    epochs TEXT NOT NULL,
    attention TEXT
);
"""

# v5: a training run that failed (Slurm ended it at its memory or time limit, the child
# crashed) is kept too, with why, the epochs it finished and its log: never silently lost.
# A table of its own, so the comparison table and the time estimate see finished runs only.
_MIGRATE_V4_TO_V5 = """
CREATE TABLE IF NOT EXISTS failed_training_runs (
    id INTEGER PRIMARY KEY,
    finished_at TEXT NOT NULL,
    source TEXT NOT NULL,
    options TEXT NOT NULL,
    reason TEXT NOT NULL,
    epochs TEXT NOT NULL,
    log TEXT NOT NULL
);
"""

# Each step takes the schema from version N to N + 1; a fresh file runs them all.
_MIGRATIONS = (
    _SCHEMA_V1,
    _MIGRATE_V1_TO_V2,
    _MIGRATE_V2_TO_V3,
    _MIGRATE_V3_TO_V4,
    _MIGRATE_V4_TO_V5,
)
MAX_STORED_ANSWER = 200


class StoreError(Exception):
    """The store cannot do what was asked; the message is one line a student can read."""


class StoreWriteError(StoreError):
    """A write did not reach the disk."""


class _Damaged(Exception):
    """SQLite says the file is not a healthy database: the only reason to move it aside."""


class _Unusable(Exception):
    """The file cannot be used this session (the reason is one line); it is left alone."""


class _Raced(_Unusable):
    """The file changed under this open: another session was moving a damaged file aside
    (between its unlink and the new file). Worth another try once that session is done."""


@dataclass(frozen=True)
class Attempt:
    quiz_id: str
    question_index: int  # 1-based, as the quiz screen numbers questions
    answer: str
    correct: bool
    timestamp: str  # ISO 8601, UTC


def _json_list(text: object) -> list[str]:
    import json  # in each use: no start-up reads or writes JSON

    try:
        value = json.loads(str(text)) if text else []
    except ValueError:
        return []
    return [str(item) for item in value] if isinstance(value, list) else []


_ROW_COLUMNS = (
    "run_id, quiz_id, question_index, answer, verdict, try_number, hints_seen, revealed,"
    " seconds, pass_kind, final, created_at"
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_REASONS = {
    sqlite3.SQLITE_FULL: "the disk or your quota is full",
    sqlite3.SQLITE_READONLY: "the progress file is read-only",
    sqlite3.SQLITE_BUSY: "another attn-tui session or program is holding the progress file",
    sqlite3.SQLITE_LOCKED: "another attn-tui session or program is holding the progress file",
    sqlite3.SQLITE_CANTOPEN: "the progress file cannot be opened",
    sqlite3.SQLITE_IOERR: "the disk reported an input/output error",
    sqlite3.SQLITE_PERM: "permission denied",
    sqlite3.SQLITE_CORRUPT: "the progress file is damaged",
    sqlite3.SQLITE_NOTADB: "the progress file is not a database",
}


def _code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF  # primary code, without the extended part


def describe(error: BaseException) -> str:
    """One line for a student, from SQLite's error code (not its message text)."""
    if isinstance(error, sqlite3.Error):
        reason = _REASONS.get(_code(error) or -1)
        return reason or str(error).rstrip(".") or type(error).__name__
    if isinstance(error, OSError) and error.errno is not None:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror or os.strerror(error.errno)}"
    return str(error) or type(error).__name__


class _QueryError(StoreError, sqlite3.Error):
    """A query's failure as a StoreError with one readable line, SQLite's code kept."""


class _GuardedConnection(sqlite3.Connection):
    """Every statement on the store's connection fails as a StoreError (one line), even a
    query written without the store's guards, so no caller can crash on a raw sqlite3 error
    by forgetting one; `except sqlite3.Error` still sees it, with its code."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except _QueryError:
            raise
        except sqlite3.Error as error:
            wrapped = _QueryError(f"Progress store: {describe(error)}.")
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
            raise _Damaged(f"the progress file is damaged: {' '.join(first.split())[:80]}")
    except sqlite3.Error as error:
        conn.close()
        if _code(error) in _DAMAGED:
            raise _Damaged(describe(error)) from error
        raise
    except UnicodeDecodeError:  # SQLite's message quoted bytes from the file; its code is lost
        conn.close()
        raise _Unusable("the progress file holds unreadable text (it may be damaged)") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _statements(script: str) -> list[str]:
    """A migration script cut into single statements (executescript would commit first)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def _migrate(conn: sqlite3.Connection) -> None:
    """Run every migration the file still needs, in one transaction: all of them or none.
    The version is read again under the write lock: two sessions opening an old (or new)
    file at once must not both run a step."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            for step in _MIGRATIONS[version:]:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def _prepare_schema(conn: sqlite3.Connection) -> None:
    """Create or upgrade the tables; a file from a newer attn-tui is left as it is."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise _Unusable(f"it was made by a newer attn-tui (schema {version})")
    if version < SCHEMA_VERSION:
        _migrate(conn)


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


class ProgressStore:
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
        except _Unusable as reason:
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
            except _Raced:
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
            raise _Unusable(describe(error)) from None
        if info is None:
            raise _Unusable(f"{read_only} and there is no progress file yet")
        try:
            if read_only is not None:
                return self._read_only_copy(read_only)
            try:
                return self._open_file(info)
            except _Damaged as damage:
                moved = self._move_aside(_identity(info))
                conn = self._open_file(self._db_info() or self._create_db())
                if moved is not None:
                    self.notice = (
                        f"Your progress file could not be read ({damage}); it was moved to"
                        f" {moved.name} and a fresh one was started."
                    )
                return conn
        except _Damaged as damage:
            raise _Unusable(str(damage)) from None
        except LinkRefused:
            raise
        except (sqlite3.Error, OSError) as error:
            if isinstance(error, sqlite3.Error) and _code(error) == sqlite3.SQLITE_CANTOPEN:
                raise _Raced(describe(error)) from None  # it vanished between lstat and open
            raise _Unusable(describe(error)) from None

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
            raise _Unusable(f"{self.path} is not a file")
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
                raise _Raced(f"{self.path} was replaced while it was being checked")
            return f"{self.path.name} is read-only for you"
        return None

    def _create_db(self) -> os.stat_result:
        with contextlib.suppress(FileExistsError):  # another session created it first
            os.close(create_private_file(self.path))
        info = self._db_info()
        if info is None:  # made and removed again by someone else in between
            raise _Raced(f"{self.path} vanished while it was being created")
        return info

    def _open_file(self, info: os.stat_result) -> sqlite3.Connection:
        conn = _connect(self.path, read_only=False, timeout_ms=self._open_timeout_ms)
        try:
            now = self._db_info()
            if now is None or _identity(now) != _identity(info):
                raise _Raced(f"{self.path} was replaced while it was being opened")
            try:
                _prepare_schema(conn)
            except sqlite3.Error as error:
                if _code(error) == sqlite3.SQLITE_FULL:  # no other session can fill it either
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
        _prepare_schema(copy)
        self.saving = False
        self.notice = f"Your progress is read-only this session: {reason}."
        return copy

    @staticmethod
    def _in_memory() -> sqlite3.Connection:
        conn = _open_memory()
        _migrate(conn)
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
        raise _Unusable(f"too many unreadable copies of {DB_NAME} in {self.directory}")

    def close(self) -> None:
        """Queued writes get one last, longer chance before the file is closed."""
        if self._pending and not self._flush_pending(ANSWER_TIMEOUT_MS, force=True):
            self.problem = f"{len(self._pending)} setting(s) not saved: the file stayed locked."
        self._conn.close()

    def __enter__(self) -> ProgressStore:
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
            if deferrable and _code(error) in _CONTENTION:
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
                if _code(error) not in _CONTENTION:
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
            if self._interactive and _code(error) in _CONTENTION and not backing_off:
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

    # quizzes

    def start_run(
        self, quiz_id: str, total: int, kind: str = "first", *, essential: bool = False
    ) -> int:
        """0 if the run could not be saved: its attempts are still kept, without a run.
        `essential` (the run made with its first attempt) raises StoreWriteError instead."""
        cursor = self._write(
            "INSERT INTO runs (quiz_id, total, started_at, kind) VALUES (?, ?, ?, ?)",
            (quiz_id, total, _now(), kind),
            essential=essential,
            deferrable=False,  # its id is needed now
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def record_attempt(
        self,
        run_id: int | None,
        quiz_id: str,
        question_index: int,
        answer: str,
        correct: bool,
        *,
        verdict: str | None = None,
        try_number: int = 1,
        hints_seen: int = 0,
        revealed: bool = False,
        seconds: float | None = None,
        pass_kind: str = "first",
        final: bool = True,
        code: CodeAttempt | None = None,
    ) -> Attempt:
        """Write one attempt durably before returning; the caller shows the verdict after.
        Raises StoreWriteError (one line) when it could not be written."""
        stamp = _now()
        answer = answer[:MAX_STORED_ANSWER]
        code_values: tuple[object, ...] = (None,) * 7
        if code is not None:
            import json

            code_values = (
                code.code.encode("utf-8", "replace")[:MAX_CODE_BYTES].decode("utf-8", "ignore"),
                code.sha256,
                code.outcome,
                code.mistake,
                json.dumps(list(code.cases_failed)),
                code.sandbox,
                code.seconds,
            )
        self._write(
            "INSERT INTO attempts (run_id, quiz_id, question_index, answer, correct, created_at,"
            " verdict, try_number, hints_seen, revealed, seconds, pass_kind, final, code,"
            " code_sha256, code_outcome, code_mistake, code_cases_failed, code_sandbox,"
            " code_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                quiz_id,
                question_index,
                answer,
                int(correct),
                stamp,
                verdict or ("right" if correct else "wrong"),
                try_number,
                hints_seen,
                int(revealed),
                seconds,
                pass_kind,
                int(final),
                *code_values,
            ),
            essential=True,
        )
        return Attempt(quiz_id, question_index, answer, correct, stamp)

    def code_checks(self, quiz_id: str | None = None) -> list[CodeCheckRow]:
        """Every stored code check, oldest first (the drop-box summary keeps the last)."""
        from tui_course.progress.records import CodeCheckRow

        where = "WHERE code_sha256 IS NOT NULL" + (" AND quiz_id = ?" if quiz_id else "")
        rows = self._read(
            "SELECT quiz_id, question_index, code, code_sha256, code_outcome, code_mistake,"
            f" code_cases_failed, code_sandbox, code_seconds, created_at FROM attempts {where}"
            " ORDER BY id",
            (quiz_id,) if quiz_id else (),
        )
        return [
            CodeCheckRow(
                str(row[0]),
                int(row[1]),
                str(row[2] or ""),
                str(row[3]),
                str(row[4] or ""),
                None if row[5] is None else int(row[5]),
                tuple(_json_list(row[6])),
                str(row[7] or ""),
                float(row[8] or 0.0),
                str(row[9]),
            )
            for row in rows
        ]

    def finish_run(self, run_id: int, correct: int | None = None) -> None:
        """Mark a pass complete; `correct` is kept for v1 readers only, scores come from rows."""
        self._write(
            "UPDATE runs SET finished_at = ?, correct = ? WHERE id = ?", (_now(), correct, run_id)
        )

    def first_run(self, quiz_id: str) -> tuple[int, bool] | None:
        """The quiz's first pass (the graded one): its run id and whether it was finished."""
        rows = self._read(
            "SELECT id, finished_at IS NOT NULL FROM runs WHERE quiz_id = ? AND kind = 'first'"
            " ORDER BY id LIMIT 1",
            (quiz_id,),
        )
        return None if not rows else (int(rows[0][0]), bool(rows[0][1]))

    def run_exists(self, run_id: int) -> bool:
        return bool(self._read("SELECT 1 FROM runs WHERE id = ?", (run_id,)))

    def run_rows(self, run_id: int) -> list[AttemptRow]:
        rows = self._read(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return [AttemptRow(*row) for row in rows]

    def all_rows(self) -> list[AttemptRow]:
        rows = self._read(f"SELECT {_ROW_COLUMNS} FROM attempts ORDER BY id")
        return [AttemptRow(*row) for row in rows]

    def quiz_rows(self, quiz_id: str) -> list[AttemptRow]:
        rows = self._read(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE quiz_id = ? ORDER BY id", (quiz_id,)
        )
        return [AttemptRow(*row) for row in rows]

    def finished_full_runs(self, quiz_id: str, question_count: int) -> list[int]:
        rows = self._read(
            "SELECT id FROM runs WHERE quiz_id = ? AND finished_at IS NOT NULL AND total = ?"
            " ORDER BY id",
            (quiz_id, question_count),
        )
        return [int(row[0]) for row in rows]

    def quiz_stats(self, quiz_id: str, question_count: int) -> QuizStats:
        """Scores derived from attempt rows only (see tui_course.progress.scores)."""
        return quiz_stats(self, quiz_id, question_count)

    def attempts(self, quiz_id: str | None = None) -> list[Attempt]:
        query = "SELECT quiz_id, question_index, answer, correct, created_at FROM attempts"
        args: tuple[str, ...] = ()
        if quiz_id is not None:
            query += " WHERE quiz_id = ?"
            args = (quiz_id,)
        rows = self._read(query + " ORDER BY id", args)
        return [Attempt(q, i, a, bool(c), t) for q, i, a, c, t in rows]

    # forgetting (attn-tui reset): each raises StoreWriteError when it did not happen

    def forget_quiz(self, quiz_id: str) -> int:
        """Delete a quiz's attempts, passes and review cards; returns the attempts removed."""
        with self.transaction():
            cursor = self._write(
                "DELETE FROM attempts WHERE quiz_id = ?", (quiz_id,), essential=True
            )
            self._write("DELETE FROM runs WHERE quiz_id = ?", (quiz_id,), essential=True)
            self._write("DELETE FROM review_cards WHERE quiz_id = ?", (quiz_id,), essential=True)
        return int(cursor.rowcount) if cursor is not None else 0

    def forget_lesson(self, lesson_id: str) -> bool:
        with self.transaction():
            deleted = self._write(
                "DELETE FROM lessons WHERE lesson_id = ?", (lesson_id,), essential=True
            )
            self._write(
                "DELETE FROM settings WHERE key = ?", (f"position:{lesson_id}",), essential=True
            )
        return deleted is not None and deleted.rowcount > 0

    def forget_everything(self) -> None:
        with self.transaction():
            for table in (
                "attempts",
                "runs",
                "review_cards",
                "lessons",
                "settings",
                "training_runs",
                "failed_training_runs",
            ):
                self._write(f"DELETE FROM {table}", essential=True)

    # the review schedule (tui_course.progress.review owns the FSRS side)

    def review_card(self, quiz_id: str, question_index: int) -> str | None:
        rows = self._read(
            "SELECT card FROM review_cards WHERE quiz_id = ? AND question_index = ?",
            (quiz_id, question_index),
        )
        return None if not rows else str(rows[0][0])

    def save_review_card(self, quiz_id: str, question_index: int, card: str, due: str) -> None:
        """Raises StoreWriteError: it is written with its attempt, in one transaction."""
        self._write(
            "INSERT INTO review_cards (quiz_id, question_index, card, due) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (quiz_id, question_index)"
            " DO UPDATE SET card = excluded.card, due = excluded.due",
            (quiz_id, question_index, card, due),
            essential=True,
        )

    def review_cards_due(self, now: str) -> list[tuple[str, int, str]]:
        """(quiz id, question number, due) of every card due at `now` (ISO 8601 UTC)."""
        rows = self._read(
            "SELECT quiz_id, question_index, due FROM review_cards WHERE due <= ?"
            " ORDER BY due, quiz_id, question_index",
            (now,),
        )
        return [(str(q), int(i), str(d)) for q, i, d in rows]

    def review_cards_all(self) -> list[tuple[str, int, str]]:
        rows = self._read("SELECT quiz_id, question_index, due FROM review_cards ORDER BY due")
        return [(str(q), int(i), str(d)) for q, i, d in rows]

    # lessons and settings

    def mark_lesson_opened(self, lesson_id: str) -> None:
        self._write(
            "INSERT OR IGNORE INTO lessons (lesson_id, first_opened_at) VALUES (?, ?)",
            (lesson_id, _now()),
        )

    def mark_lesson_done(self, lesson_id: str) -> None:
        self.mark_lesson_opened(lesson_id)
        self._write(
            "UPDATE lessons SET done_at = ? WHERE lesson_id = ? AND done_at IS NULL",
            (_now(), lesson_id),
        )

    def lessons_done(self) -> set[str]:
        """Lessons read: their end has been on screen."""
        rows = self._read("SELECT lesson_id FROM lessons WHERE done_at IS NOT NULL")
        return {str(row[0]) for row in rows}

    def lesson_activity(self) -> dict[str, str]:
        """When each lesson was last touched: read, or else first opened."""
        rows = self._read("SELECT lesson_id, COALESCE(done_at, first_opened_at) FROM lessons")
        return {str(lesson): str(stamp) for lesson, stamp in rows}

    def get_setting(self, key: str) -> str | None:
        """None when unset, or when it cannot be read (reported: settings are not essential)."""
        try:
            rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        except StoreError as error:
            self._report(str(error))
            return None
        return str(rows[0][0]) if rows else None

    def set_setting(self, key: str, value: str) -> None:
        self._write(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # training runs

    def record_training_run(self, record: TrainingRecord) -> int:
        """Keep a finished run; 0 when it could not be saved (reported, never raised: a
        training result is not worth stopping the lab for)."""
        import json

        cursor = self._write(
            "INSERT INTO training_runs (finished_at, source, options, params, test_accuracy,"
            " test_loss, seconds, epochs, attention) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.finished_at or _now(),
                record.source,
                json.dumps(record.options, sort_keys=True),
                record.params,
                record.test_accuracy,
                record.test_loss,
                record.seconds,
                json.dumps(list(record.epochs)),
                None if record.attention is None else json.dumps(record.attention),
            ),
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def record_failed_training_run(self, record: FailedTrainingRecord) -> int:
        """Keep a run that ended in an error; 0 when it could not be saved (reported)."""
        import json

        cursor = self._write(
            "INSERT INTO failed_training_runs (finished_at, source, options, reason, epochs, log)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                record.finished_at or _now(),
                record.source,
                json.dumps(record.options, sort_keys=True),
                record.reason,
                json.dumps(list(record.epochs)),
                record.log,
            ),
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def failed_training_runs(self) -> list[FailedTrainingRecord]:
        """Every kept failed run, oldest first; a row whose JSON does not parse is skipped."""
        import json

        from tui_course.progress.records import FailedTrainingRecord

        rows = self._read(
            "SELECT id, finished_at, source, options, reason, epochs, log"
            " FROM failed_training_runs ORDER BY id"
        )
        records = []
        for run_id, when, source, options, reason, epochs, log in rows:
            try:
                records.append(
                    FailedTrainingRecord(
                        source=str(source),
                        options=dict(json.loads(options)),
                        reason=str(reason),
                        epochs=tuple(dict(epoch) for epoch in json.loads(epochs)),
                        log=str(log),
                        finished_at=str(when),
                        id=int(run_id),
                    )
                )
            except (ValueError, TypeError):
                continue
        return records

    def training_runs(self) -> list[TrainingRecord]:
        """Every kept run, oldest first. A row whose JSON does not parse is skipped."""
        import json

        from tui_course.progress.records import TrainingRecord

        rows = self._read(
            "SELECT id, finished_at, source, options, params, test_accuracy, test_loss, seconds,"
            " epochs, attention FROM training_runs ORDER BY id"
        )
        records = []
        for run_id, when, source, options, params, accuracy, loss, seconds, epochs, att in rows:
            try:
                record = TrainingRecord(
                    source=str(source),
                    options=dict(json.loads(options)),
                    params=int(params),
                    test_accuracy=float(accuracy),
                    test_loss=float(loss),
                    seconds=float(seconds),
                    epochs=tuple(dict(epoch) for epoch in json.loads(epochs)),
                    attention=None if att is None else dict(json.loads(att)),
                    finished_at=str(when),
                    id=int(run_id),
                )
            except (ValueError, TypeError):
                continue
            records.append(record)
        return records
