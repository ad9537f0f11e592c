"""The progress store: one SQLite file in the user's data directory.

Choices that matter on a shared lab server:
- journal_mode=DELETE (no WAL): WAL needs shared memory, which network home
  directories (NFS) do not give reliably.
- synchronous=FULL and one transaction per write: when the screen says
  "Correct", the attempt is already on disk; kill -9 loses nothing.
- busy_timeout: two sessions of the same student wait for each other instead
  of failing.
- a file that is not a readable database is moved aside (never deleted) and a
  fresh one started, with a notice for the user.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tui_course.paths import ensure_private_dir

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000
DB_NAME = "progress.db"

_SCHEMA = """
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


class StoreError(Exception):
    """The store cannot be used at all (for example, locked by another process for too long)."""


@dataclass(frozen=True)
class Attempt:
    quiz_id: str
    question_index: int  # 1-based, as the quiz screen numbers questions
    answer: str
    correct: bool
    timestamp: str  # ISO 8601, UTC


@dataclass(frozen=True)
class QuizStats:
    attempts: int
    mastered: frozenset[int]  # question numbers answered correctly at least once
    best_correct: int | None  # best first-try score over finished full runs
    best_total: int | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _is_contention(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


class ProgressStore:
    def __init__(self, directory: Path) -> None:
        self.directory = ensure_private_dir(directory)
        self.path = self.directory / DB_NAME
        self.notice: str | None = None
        try:
            self._conn = self._connect()
        except sqlite3.Error as error:
            if _is_contention(error):
                raise StoreError(
                    f"{self.path}: another attn-tui holds the progress database"
                ) from None
            moved = self._move_aside()
            self.notice = (
                f"Your progress file could not be read ({error}); it was moved to {moved.name} "
                "and a fresh one was started."
            )
            self._conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        if not self.path.exists() and not self.path.is_symlink():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        if self.path.is_file():
            self.path.chmod(0o600)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA synchronous = FULL")
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {verdict}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"made by a newer attn-tui (schema {version})")
            if version < SCHEMA_VERSION:
                conn.executescript(
                    f"BEGIN; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                )
        except BaseException:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{DB_NAME}.unreadable-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{DB_NAME}.unreadable-{stamp}-{counter}")
            counter += 1
        self.path.rename(target)
        journal = self.path.with_name(DB_NAME + "-journal")
        if journal.exists():
            journal.rename(target.with_name(target.name + "-journal"))
        return target

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # quizzes

    def start_run(self, quiz_id: str, total: int) -> int:
        cursor = self._conn.execute(
            "INSERT INTO runs (quiz_id, total, started_at) VALUES (?, ?, ?)",
            (quiz_id, total, _now()),
        )
        return int(cursor.lastrowid or 0)

    def record_attempt(
        self, run_id: int | None, quiz_id: str, question_index: int, answer: str, correct: bool
    ) -> Attempt:
        """Write one attempt durably before returning; the caller shows the verdict after."""
        stamp = _now()
        self._conn.execute(
            "INSERT INTO attempts (run_id, quiz_id, question_index, answer, correct, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, quiz_id, question_index, answer, int(correct), stamp),
        )
        return Attempt(quiz_id, question_index, answer, correct, stamp)

    def finish_run(self, run_id: int, correct: int) -> None:
        self._conn.execute(
            "UPDATE runs SET finished_at = ?, correct = ? WHERE id = ?", (_now(), correct, run_id)
        )

    def quiz_stats(self, quiz_id: str, question_count: int) -> QuizStats:
        attempts = self._conn.execute(
            "SELECT COUNT(*) FROM attempts WHERE quiz_id = ?", (quiz_id,)
        ).fetchone()[0]
        mastered = frozenset(
            row[0]
            for row in self._conn.execute(
                "SELECT DISTINCT question_index FROM attempts WHERE quiz_id = ? AND correct = 1",
                (quiz_id,),
            )
            if 1 <= row[0] <= question_count
        )
        best = self._conn.execute(
            "SELECT MAX(correct) FROM runs WHERE quiz_id = ? AND finished_at IS NOT NULL"
            " AND total = ?",
            (quiz_id, question_count),
        ).fetchone()[0]
        return QuizStats(
            attempts=attempts,
            mastered=mastered,
            best_correct=best,
            best_total=question_count if best is not None else None,
        )

    def attempts(self, quiz_id: str | None = None) -> list[Attempt]:
        query = "SELECT quiz_id, question_index, answer, correct, created_at FROM attempts"
        args: tuple[str, ...] = ()
        if quiz_id is not None:
            query += " WHERE quiz_id = ?"
            args = (quiz_id,)
        rows = self._conn.execute(query + " ORDER BY id", args).fetchall()
        return [Attempt(q, i, a, bool(c), t) for q, i, a, c, t in rows]

    # lessons and settings

    def mark_lesson_opened(self, lesson_id: str) -> None:
        self._conn.execute(
            "INSERT OR IGNORE INTO lessons (lesson_id, first_opened_at) VALUES (?, ?)",
            (lesson_id, _now()),
        )

    def mark_lesson_done(self, lesson_id: str) -> None:
        self.mark_lesson_opened(lesson_id)
        self._conn.execute(
            "UPDATE lessons SET done_at = ? WHERE lesson_id = ? AND done_at IS NULL",
            (_now(), lesson_id),
        )

    def lessons_done(self) -> set[str]:
        rows = self._conn.execute("SELECT lesson_id FROM lessons WHERE done_at IS NOT NULL")
        return {row[0] for row in rows}

    def get_setting(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
