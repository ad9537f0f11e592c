"""The progress store: durable, private, shared by two sessions, and never fatal when broken."""

from __future__ import annotations

import json
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_python
from tui_course.progress.store import DB_NAME, SCHEMA_VERSION, ProgressStore


def test_attempts_round_trip_with_every_v2_field(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        run = store.start_run("quiz", 3)
        store.record_attempt(run, "quiz", 1, "2", True, seconds=3.5)
        store.record_attempt(run, "quiz", 2, "1", False, final=False, hints_seen=0)
        store.record_attempt(run, "quiz", 2, "3", True, try_number=2, hints_seen=1)
        store.record_attempt(run, "quiz", 3, "x" * 500, False, final=False)
    with ProgressStore(data_dir) as again:
        rows = again.quiz_rows("quiz")
        assert [(r.question_index, r.verdict, r.try_number, r.hints_seen) for r in rows] == [
            (1, "right", 1, 0),
            (2, "wrong", 1, 0),
            (2, "right", 2, 1),
            (3, "wrong", 1, 0),
        ]
        assert rows[0].seconds == 3.5 and rows[0].pass_kind == "first" and rows[0].final
        assert len(rows[3].answer) == 200  # stored as typed, capped
        assert rows[0].created_at.endswith("+00:00")


def test_scores_come_from_rows_and_retries_never_raise_first_try(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        first = store.start_run("quiz", 3)
        store.record_attempt(first, "quiz", 1, "2", True)
        store.record_attempt(first, "quiz", 2, "1", False, final=False)
        stats = store.quiz_stats("quiz", 3)
        assert (stats.state, stats.answered, stats.first_try) == ("in progress", 1, None)
        store.record_attempt(first, "quiz", 2, "3", True, try_number=2, hints_seen=2)
        store.record_attempt(
            first, "quiz", 3, "", False, verdict="revealed", revealed=True, try_number=0
        )
        store.finish_run(first)
        retry = store.start_run("quiz", 3, "retry")
        for number in (1, 2, 3):
            store.record_attempt(retry, "quiz", number, "ok", True, pass_kind="retry")
        store.finish_run(retry)
        stats = store.quiz_stats("quiz", 3)
        assert (stats.state, stats.first_try, stats.best) == ("finished", 1, 3)
        assert stats.mastered == frozenset({1, 2, 3})
        assert (stats.tries, stats.hints, stats.reveals) == (6, 2, 1)


def test_part_way_retry_is_not_a_best_score(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        retry = store.start_run("quiz", 1, "retry")
        store.record_attempt(retry, "quiz", 1, "a", True, pass_kind="retry")
        store.finish_run(retry)
        stats = store.quiz_stats("quiz", 3)
        assert (stats.best, stats.state, stats.first_try) == (None, "not started", None)


V1_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, quiz_id TEXT NOT NULL, total INTEGER NOT NULL,
    started_at TEXT NOT NULL, finished_at TEXT, correct INTEGER);
CREATE TABLE attempts (id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs(id),
    quiz_id TEXT NOT NULL, question_index INTEGER NOT NULL, answer TEXT NOT NULL,
    correct INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX attempts_by_quiz ON attempts (quiz_id, question_index);
CREATE TABLE lessons (lesson_id TEXT PRIMARY KEY, first_opened_at TEXT NOT NULL, done_at TEXT);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
PRAGMA user_version = 1;
"""


def test_v1_database_is_migrated_and_keeps_its_attempts(data_dir: Path) -> None:
    """A database as the v1 release wrote it: a wrong answer, then (key shown) a retry."""
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / DB_NAME)
    conn.executescript(V1_SCHEMA)
    stamp = "2026-11-01T10:00:00+00:00"
    conn.executescript(
        f"""
        INSERT INTO runs VALUES (1, 'checkpoint', 3, '{stamp}', '{stamp}', 2);
        INSERT INTO runs VALUES (2, 'checkpoint', 1, '{stamp}', '{stamp}', 1);
        INSERT INTO attempts VALUES (1, 1, 'checkpoint', 1, '2', 1, '{stamp}');
        INSERT INTO attempts VALUES (2, 1, 'checkpoint', 2, '3', 0, '{stamp}');
        INSERT INTO attempts VALUES (3, 1, 'checkpoint', 2, '1', 1, '{stamp}');
        INSERT INTO attempts VALUES (4, 1, 'checkpoint', 3, '1,2', 1, '{stamp}');
        INSERT INTO attempts VALUES (5, 2, 'checkpoint', 2, '2', 1, '{stamp}');
        INSERT INTO lessons VALUES ('self-attention', '{stamp}', '{stamp}');
        INSERT INTO settings VALUES ('last_opened', 'checkpoint');
        """
    )
    conn.commit()
    conn.close()
    with ProgressStore(data_dir) as store:
        assert store.notice is None
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        rows = store.quiz_rows("checkpoint")
        assert [
            (r.question_index, r.answer, r.verdict, r.try_number, r.revealed) for r in rows
        ] == [
            (1, "2", "right", 1, False),
            (2, "3", "wrong", 1, False),
            (2, "1", "right", 2, True),  # v1 showed the key after the wrong answer
            (3, "1,2", "right", 1, False),
            (2, "2", "right", 1, False),
        ]
        assert [r.pass_kind for r in rows] == ["first"] * 4 + ["retry"]
        assert [r.final for r in rows] == [True, False, True, True, True]
        stats = store.quiz_stats("checkpoint", 3)
        assert (stats.state, stats.first_try, stats.best) == ("finished", 2, 2)
        assert stats.mastered == frozenset({1, 2, 3})  # q2 later right on a try of its own
        assert store.lessons_done() == {"self-attention"}
        assert store.get_setting("last_opened") == "checkpoint"
        store.record_attempt(None, "checkpoint", 1, "2", True)  # v2 writes work on it
    with ProgressStore(data_dir) as again:  # opening a v2 file again migrates nothing
        assert len(again.quiz_rows("checkpoint")) == 6


def test_lessons_and_settings(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        store.mark_lesson_opened("a")
        store.mark_lesson_done("b")
        store.set_setting("last_opened", "a")
        store.set_setting("last_opened", "b")
    with ProgressStore(data_dir) as store:
        assert store.lessons_done() == {"b"}
        assert store.get_setting("last_opened") == "b"
        assert store.get_setting("missing") is None


def test_private_permissions_no_wal_and_full_sync(data_dir: Path) -> None:
    """synchronous=FULL is what makes a committed answer survive a power cut (kill -9 alone
    cannot tell: the kernel keeps unsynced pages), so it is asserted here."""
    for _ in range(2):  # a new file, then an existing one
        with ProgressStore(data_dir) as store:
            assert store.saving and store.notice is None
            assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / DB_NAME).stat().st_mode) == 0o600


def test_corrupt_file_is_moved_aside_with_a_notice(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / DB_NAME).write_bytes(b"this is not a database" * 100)
    with ProgressStore(data_dir) as store:
        assert store.notice is not None and "moved to progress.db.unreadable-" in store.notice
        store.record_attempt(None, "quiz", 1, "1", True)
        assert len(store.attempts()) == 1
    aside = [p for p in data_dir.iterdir() if p.name.startswith(DB_NAME + ".unreadable-")]
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not a database")


def test_directory_where_the_database_should_be(data_dir: Path) -> None:
    """Not a damaged database: left alone, and the session runs without saving."""
    (data_dir / DB_NAME).mkdir(parents=True)
    (data_dir / DB_NAME / "keep").write_text("mine")
    with ProgressStore(data_dir, interactive=True) as store:
        assert store.notice is not None and "is not a file" in store.notice
        assert not store.saving
    assert (data_dir / DB_NAME / "keep").read_text() == "mine"
    assert sorted(p.name for p in data_dir.iterdir()) == [DB_NAME]


def test_newer_schema_is_not_overwritten(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / DB_NAME)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = (data_dir / DB_NAME).read_bytes()
    with ProgressStore(data_dir, interactive=True) as store:
        assert store.notice is not None and "newer attn-tui" in store.notice
        store.set_setting("last_opened", "a")
    assert sorted(p.name for p in data_dir.iterdir()) == [DB_NAME]
    assert (data_dir / DB_NAME).read_bytes() == before


def test_two_sessions_write_concurrently(data_dir: Path) -> None:
    """Two processes of the same student (two SSH logins) both get every write in."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tui_course.progress.store import ProgressStore\n"
        "store = ProgressStore(Path(sys.argv[1]))\n"
        "for index in range(40):\n"
        "    store.record_attempt(None, sys.argv[2], index, 'x', index % 2 == 0)\n"
        "    store.set_setting('last_opened', sys.argv[2])\n"
    )
    ProgressStore(data_dir).close()
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(data_dir), quiz], stderr=subprocess.PIPE
        )
        for quiz in ("a", "b")
    ]
    errors = [child.communicate()[1] for child in children]
    assert [child.returncode for child in children] == [0, 0], errors
    with ProgressStore(data_dir) as store:
        assert len(store.attempts("a")) == 40 and len(store.attempts("b")) == 40


def test_attempt_survives_kill_9(data_dir: Path) -> None:
    """A child records an attempt, says so, then is killed before any clean shutdown. It also
    reports the sync level its writes used: with synchronous=OFF the kill alone would pass
    (the kernel still holds the page), but a power cut would lose the answer."""
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from tui_course.progress.store import ProgressStore\n"
        "store = ProgressStore(Path(sys.argv[1]))\n"
        "store.record_attempt(None, 'quiz', 1, '42', True)\n"
        "sync = store._conn.execute('PRAGMA synchronous').fetchone()[0]\n"
        "print('recorded', sync, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    result = run_python(script, str(data_dir))
    assert result.stdout.split() == ["recorded", "2"]  # 2 is FULL: fsync before returning
    assert result.returncode == -9
    with ProgressStore(data_dir) as store:
        assert [(a.answer, a.correct) for a in store.attempts()] == [("42", True)]


def test_progress_json_lists_every_attempt(data_dir: Path, course_root: Path) -> None:
    with ProgressStore(data_dir) as store:
        run = store.start_run("checkpoint", 3)
        store.record_attempt(run, "checkpoint", 1, "2", True, seconds=2.0)
        store.record_attempt(run, "checkpoint", 2, "3", False, final=False)
        store.mark_lesson_done("self-attention")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tui_course",
            "progress",
            "--format",
            "json",
            "--data-dir",
            str(data_dir),
            "--content",
            str(course_root),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(result.stdout)
    assert [
        (a["question_index"], a["answer"], a["verdict"], a["final"]) for a in report["attempts"]
    ] == [
        (1, "2", "right", True),
        (2, "3", "wrong", False),
    ]
    assert all("T" in a["created_at"] for a in report["attempts"])
    read = {lesson["id"]: lesson["read"] for lesson in report["lessons"]}
    assert read["self-attention"] is True and read["why-transformers"] is False
    checkpoint = next(q for q in report["quizzes"] if q["id"] == "checkpoint")
    assert checkpoint == {
        "id": "checkpoint",
        "title": "Mini-checkpoint: why positions?",
        "questions": 3,
        "state": "in progress",
        "answered": 1,
        "first_try": None,
        "mastered": 1,
        "best": None,
        "tries": 2,
        "hints": 0,
        "reveals": 0,
        "seconds": 2.0,
        "last_activity": checkpoint["last_activity"],
    }
