"""What can go wrong with the progress file, as errors and one line a student can read.

SQLite's error code decides, never its message text: contention waits, damage (and only
damage) moves the file aside, anything else is said in one line and the session goes on.
"""

from __future__ import annotations

import os
import sqlite3

CONTENTION = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})

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


class StoreError(Exception):
    """The store cannot do what was asked; the message is one line a student can read."""


class StoreWriteError(StoreError):
    """A write did not reach the disk."""


class Damaged(Exception):
    """SQLite says the file is not a healthy database: the only reason to move it aside."""


class Unusable(Exception):
    """The file cannot be used this session (the reason is one line); it is left alone."""


class Raced(Unusable):
    """The file changed under this open: another session was moving a damaged file aside
    (between its unlink and the new file). Worth another try once that session is done."""


class QueryError(StoreError, sqlite3.Error):
    """A query's failure as a StoreError with one readable line, SQLite's code kept."""


def sqlite_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code of `error` (without the extended part), if it has one."""
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def describe(error: BaseException) -> str:
    """One line for a student, from SQLite's error code (not its message text)."""
    if isinstance(error, sqlite3.Error):
        reason = _REASONS.get(sqlite_code(error) or -1)
        return reason or str(error).rstrip(".") or type(error).__name__
    if isinstance(error, OSError) and error.errno is not None:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror or os.strerror(error.errno)}"
    return str(error) or type(error).__name__
