"""The progress store: durable, private, shared by two sessions, and never fatal when broken."""

from __future__ import annotations

import json
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_python
from tui_course.progress.store import DB_NAME, ProgressStore


def test_attempts_runs_and_scores_round_trip(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        run = store.start_run("quiz", 3)
        store.record_attempt(run, "quiz", 1, "2", True)
        store.record_attempt(run, "quiz", 2, "1", False)
        store.record_attempt(run, "quiz", 2, "3", True)
        store.finish_run(run, 1)
        partial = store.start_run("quiz", 3)
        store.record_attempt(partial, "quiz", 3, "0.5", True)
        stats = store.quiz_stats("quiz", 3)
        assert stats.attempts == 4
        assert stats.mastered == frozenset({1, 2, 3})
        assert (stats.best_correct, stats.best_total) == (1, 3)
    with ProgressStore(data_dir) as again:
        attempts = again.attempts("quiz")
        assert [(a.question_index, a.answer, a.correct) for a in attempts] == [
            (1, "2", True),
            (2, "1", False),
            (2, "3", True),
            (3, "0.5", True),
        ]
        assert attempts[0].timestamp.endswith("+00:00")


def test_retry_runs_do_not_count_as_best_full_score(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        retry = store.start_run("quiz", 1)
        store.finish_run(retry, 1)
        assert store.quiz_stats("quiz", 3).best_correct is None


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
        store.record_attempt(run, "checkpoint", 1, "2", True)
        store.record_attempt(run, "checkpoint", 2, "3", False)
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
    assert report["attempts"] == [
        {
            "quiz_id": "checkpoint",
            "question_index": 1,
            "answer": "2",
            "correct": True,
            "timestamp": report["attempts"][0]["timestamp"],
        },
        {
            "quiz_id": "checkpoint",
            "question_index": 2,
            "answer": "3",
            "correct": False,
            "timestamp": report["attempts"][1]["timestamp"],
        },
    ]
    assert all("T" in a["timestamp"] for a in report["attempts"])
    done = {lesson["id"]: lesson["done"] for lesson in report["lessons"]}
    assert done["self-attention"] is True and done["why-transformers"] is False
    checkpoint = next(q for q in report["quizzes"] if q["id"] == "checkpoint")
    assert checkpoint == {
        "id": "checkpoint",
        "title": "Mini-checkpoint: why positions?",
        "questions": 3,
        "best_score": None,
        "mastered": 1,
        "attempts": 2,
        "done": False,
    }
