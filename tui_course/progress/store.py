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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tui_course.paths import ensure_private_dir

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 5000
DB_NAME = "progress.db"

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

# Each step takes the schema from version N to N + 1; a fresh file runs them all.
_MIGRATIONS = (_SCHEMA_V1, _MIGRATE_V1_TO_V2)
MAX_STORED_ANSWER = 200


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
class AttemptRow:
    """An attempt with everything v2 keeps about it."""

    run_id: int | None
    quiz_id: str
    question_index: int  # 1-based
    answer: str
    verdict: str  # right | wrong | revealed | skipped
    try_number: int
    hints_seen: int
    revealed: bool
    seconds: float | None
    pass_kind: str  # first | retry | review
    final: bool
    created_at: str


_ROW_COLUMNS = (
    "run_id, quiz_id, question_index, answer, verdict, try_number, hints_seen, revealed,"
    " seconds, pass_kind, final, created_at"
)


@dataclass(frozen=True)
class QuizStats:
    """A quiz's standing, derived from its attempt rows (tui_course.progress.scores)."""

    state: str  # not started | in progress | finished
    answered: int  # questions closed in the first pass
    first_try: int | None  # right on try 1 in the finished first pass
    mastered: frozenset[int]  # question numbers right without reveal, at any try
    best: int | None  # most questions right without reveal in one finished full pass
    tries: int  # answers graded (right or wrong)
    hints: int
    reveals: int
    seconds: float
    last_activity: str | None

    @property
    def attempts(self) -> int:
        return self.tries


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Run every migration after `version` in one transaction: all of them or none."""
    steps = " ".join(_MIGRATIONS[version:])
    try:
        conn.executescript(
            f"BEGIN IMMEDIATE; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        )
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


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
                _migrate(conn, version)
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

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Several writes that stand or fall together (an attempt and its review card)."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # quizzes

    def start_run(self, quiz_id: str, total: int, kind: str = "first") -> int:
        cursor = self._conn.execute(
            "INSERT INTO runs (quiz_id, total, started_at, kind) VALUES (?, ?, ?, ?)",
            (quiz_id, total, _now(), kind),
        )
        return int(cursor.lastrowid or 0)

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
    ) -> Attempt:
        """Write one attempt durably before returning; the caller shows the verdict after."""
        stamp = _now()
        answer = answer[:MAX_STORED_ANSWER]
        self._conn.execute(
            "INSERT INTO attempts (run_id, quiz_id, question_index, answer, correct, created_at,"
            " verdict, try_number, hints_seen, revealed, seconds, pass_kind, final)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            ),
        )
        return Attempt(quiz_id, question_index, answer, correct, stamp)

    def finish_run(self, run_id: int, correct: int | None = None) -> None:
        """Mark a pass complete; `correct` is kept for v1 readers only, scores come from rows."""
        self._conn.execute(
            "UPDATE runs SET finished_at = ?, correct = ? WHERE id = ?", (_now(), correct, run_id)
        )

    def first_run(self, quiz_id: str) -> tuple[int, bool] | None:
        """The quiz's first pass (the graded one): its run id and whether it was finished."""
        row = self._conn.execute(
            "SELECT id, finished_at IS NOT NULL FROM runs WHERE quiz_id = ? AND kind = 'first'"
            " ORDER BY id LIMIT 1",
            (quiz_id,),
        ).fetchone()
        return None if row is None else (int(row[0]), bool(row[1]))

    def run_rows(self, run_id: int) -> list[AttemptRow]:
        rows = self._conn.execute(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE run_id = ? ORDER BY id", (run_id,)
        ).fetchall()
        return [AttemptRow(*row) for row in rows]

    def all_rows(self) -> list[AttemptRow]:
        rows = self._conn.execute(f"SELECT {_ROW_COLUMNS} FROM attempts ORDER BY id").fetchall()
        return [AttemptRow(*row) for row in rows]

    def quiz_rows(self, quiz_id: str) -> list[AttemptRow]:
        rows = self._conn.execute(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE quiz_id = ? ORDER BY id", (quiz_id,)
        ).fetchall()
        return [AttemptRow(*row) for row in rows]

    def finished_full_runs(self, quiz_id: str, question_count: int) -> list[int]:
        rows = self._conn.execute(
            "SELECT id FROM runs WHERE quiz_id = ? AND finished_at IS NOT NULL AND total = ?"
            " ORDER BY id",
            (quiz_id, question_count),
        )
        return [int(row[0]) for row in rows]

    def quiz_stats(self, quiz_id: str, question_count: int) -> QuizStats:
        """Scores derived from attempt rows only (see tui_course.progress.report)."""
        from tui_course.progress.scores import quiz_stats

        return quiz_stats(self, quiz_id, question_count)

    def attempts(self, quiz_id: str | None = None) -> list[Attempt]:
        query = "SELECT quiz_id, question_index, answer, correct, created_at FROM attempts"
        args: tuple[str, ...] = ()
        if quiz_id is not None:
            query += " WHERE quiz_id = ?"
            args = (quiz_id,)
        rows = self._conn.execute(query + " ORDER BY id", args).fetchall()
        return [Attempt(q, i, a, bool(c), t) for q, i, a, c, t in rows]

    def forget_quiz(self, quiz_id: str) -> int:
        """Delete a quiz's attempts, passes and review cards; returns the attempts removed."""
        with self.transaction():
            count = self._conn.execute(
                "DELETE FROM attempts WHERE quiz_id = ?", (quiz_id,)
            ).rowcount
            self._conn.execute("DELETE FROM runs WHERE quiz_id = ?", (quiz_id,))
            self._conn.execute("DELETE FROM review_cards WHERE quiz_id = ?", (quiz_id,))
        return int(count)

    def forget_lesson(self, lesson_id: str) -> bool:
        deleted = self._conn.execute("DELETE FROM lessons WHERE lesson_id = ?", (lesson_id,))
        self._conn.execute("DELETE FROM settings WHERE key = ?", (f"position:{lesson_id}",))
        return deleted.rowcount > 0

    def forget_everything(self) -> None:
        self._conn.executescript(
            "BEGIN IMMEDIATE; DELETE FROM attempts; DELETE FROM runs; DELETE FROM review_cards;"
            " DELETE FROM lessons; DELETE FROM settings; COMMIT;"
        )

    # the review schedule (tui_course.progress.review owns the FSRS side)

    def review_card(self, quiz_id: str, question_index: int) -> str | None:
        row = self._conn.execute(
            "SELECT card FROM review_cards WHERE quiz_id = ? AND question_index = ?",
            (quiz_id, question_index),
        ).fetchone()
        return None if row is None else str(row[0])

    def save_review_card(self, quiz_id: str, question_index: int, card: str, due: str) -> None:
        self._conn.execute(
            "INSERT INTO review_cards (quiz_id, question_index, card, due) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (quiz_id, question_index)"
            " DO UPDATE SET card = excluded.card, due = excluded.due",
            (quiz_id, question_index, card, due),
        )

    def review_cards_due(self, now: str) -> list[tuple[str, int, str]]:
        """(quiz id, question number, due) of every card due at `now` (ISO 8601 UTC)."""
        rows = self._conn.execute(
            "SELECT quiz_id, question_index, due FROM review_cards WHERE due <= ?"
            " ORDER BY due, quiz_id, question_index",
            (now,),
        )
        return [(str(q), int(i), str(d)) for q, i, d in rows]

    def review_cards_all(self) -> list[tuple[str, int, str]]:
        rows = self._conn.execute(
            "SELECT quiz_id, question_index, due FROM review_cards ORDER BY due"
        )
        return [(str(q), int(i), str(d)) for q, i, d in rows]

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
        """Lessons read: their end has been on screen."""
        rows = self._conn.execute("SELECT lesson_id FROM lessons WHERE done_at IS NOT NULL")
        return {row[0] for row in rows}

    def lesson_activity(self) -> dict[str, str]:
        """When each lesson was last touched: read, or else first opened."""
        rows = self._conn.execute(
            "SELECT lesson_id, COALESCE(done_at, first_opened_at) FROM lessons"
        )
        return {str(lesson): str(stamp) for lesson, stamp in rows}

    def get_setting(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
