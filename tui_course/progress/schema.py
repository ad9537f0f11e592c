"""The progress file's tables, and the steps that bring an older file up to date.

The version lives in SQLite's `user_version`. Each step takes the schema from version N to
N + 1 and a fresh file runs them all, in one transaction: a file is at one version or the
next, never between. A file from a newer attn-tui is never touched.
"""

from __future__ import annotations

import contextlib
import sqlite3

from tui_course.progress.store_errors import Unusable

SCHEMA_VERSION = 5

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
MIGRATIONS = (
    _SCHEMA_V1,
    _MIGRATE_V1_TO_V2,
    _MIGRATE_V2_TO_V3,
    _MIGRATE_V3_TO_V4,
    _MIGRATE_V4_TO_V5,
)


def _statements(script: str) -> list[str]:
    """A migration script cut into single statements (executescript would commit first)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def migrate(conn: sqlite3.Connection) -> None:
    """Run every migration the file still needs, in one transaction: all of them or none.
    The version is read again under the write lock: two sessions opening an old (or new)
    file at once must not both run a step."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            for step in MIGRATIONS[version:]:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def prepare_schema(conn: sqlite3.Connection) -> None:
    """Create or upgrade the tables; a file from a newer attn-tui is left as it is."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise Unusable(f"it was made by a newer attn-tui (schema {version})")
    if version < SCHEMA_VERSION:
        migrate(conn)
