"""The FSRS review queue with a fixed clock: what enters it, when it comes back, and that
the schedule lives in the progress database (a restart or kill -9 keeps it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tui_course.answers import read_number, resolve
from tui_course.content.course import load_course
from tui_course.content.session import PassKind
from tui_course.progress.review import ReviewSchedule, review_session
from tui_course.progress.store import ProgressStore

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def test_only_misses_and_reveals_are_scheduled(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        schedule = ReviewSchedule(store, lambda: START)
        schedule.closed("quiz", 1, "right", 1, "first")  # right first try: not queued
        schedule.closed("quiz", 2, "right", 2, "first")  # right on try 2: queued
        schedule.closed("quiz", 3, "revealed", 0, "first")
        schedule.closed("quiz", 4, "skipped", 0, "first")
        assert schedule.due() == []  # nothing is due at once
        soon = ReviewSchedule(store, lambda: START + timedelta(minutes=2))
        assert [item.question for item in soon.due()] == [3, 4]  # missed: back after 1 min
        later = ReviewSchedule(store, lambda: START + timedelta(minutes=11))
        assert sorted(item.question for item in later.due()) == [2, 3, 4]  # hard: a bit later


def test_a_new_card_is_made_without_fsrs_sleeping(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skip or miss makes its card while the student waits for the next question:
    fsrs's Card() sleeps a millisecond for a unique id (on a busy server, a wake-up of
    ~10 ms), so the schedule gives the id itself, from its own clock."""
    import fsrs.card

    sleeps: list[float] = []
    monkeypatch.setattr(fsrs.card.time, "sleep", sleeps.append)
    with ProgressStore(data_dir) as store:
        schedule = ReviewSchedule(store, lambda: START)
        schedule.closed("quiz", 4, "skipped", 0, "first")
        stored = store.review_card("quiz", 4)
    assert sleeps == []
    assert stored is not None
    assert fsrs.Card.from_json(stored).card_id == int(START.timestamp() * 1000)


def test_a_good_review_pushes_the_card_later(data_dir: Path) -> None:
    clock = [START]
    with ProgressStore(data_dir) as store:
        schedule = ReviewSchedule(store, lambda: clock[0])
        schedule.closed("quiz", 1, "wrong", 3, "first")
        clock[0] += timedelta(minutes=2)
        assert len(schedule.due()) == 1
        schedule.closed("quiz", 1, "right", 1, "review")
        assert schedule.due() == []
        next_due = schedule.next_due()
        assert next_due is not None and next_due > clock[0].isoformat()
        clock[0] += timedelta(minutes=11)
        schedule.closed("quiz", 1, "right", 1, "review")  # out of learning steps
        clock[0] += timedelta(hours=12)
        assert schedule.due() == []  # a day or more away now
        schedule.closed("quiz", 1, "right", 1, "first")  # a right first try elsewhere
        assert len(store.review_cards_all()) == 1  # ...leaves the card as it was


def test_review_session_mixes_quizzes_and_keeps_tries(data_dir: Path, course_root: Path) -> None:
    course = load_course(course_root)
    with ProgressStore(data_dir) as store:
        schedule = ReviewSchedule(store, lambda: START)
        schedule.closed("checkpoint", 2, "wrong", 2, "first")
        schedule.closed("exercises", 1, "revealed", 0, "first")
        schedule.closed("gone", 1, "revealed", 0, "first")  # a quiz no longer in the course
        soon = START + timedelta(minutes=2)
        session = review_session(course, store, soon, resolve, read_number)
        assert session is not None and session.kind is PassKind.REVIEW
        assert [session.review_of[i] for i in session.order] == ["checkpoint", "exercises"]
        assert session.tries_allowed == 2  # checkpoint q2 has 3 options: 2 tries
        record = session.reveal()
        assert record is not None and (record.quiz_id, record.question) == ("checkpoint", 2)
        assert review_session(course, store, START, resolve, read_number) is None


def test_schedule_survives_kill_9(data_dir: Path) -> None:
    script = (
        "import os, signal, sys\n"
        "from datetime import UTC, datetime\n"
        "from pathlib import Path\n"
        "from tui_course.progress.review import ReviewSchedule\n"
        "from tui_course.progress.store import ProgressStore\n"
        "store = ProgressStore(Path(sys.argv[1]))\n"
        "when = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)\n"
        "ReviewSchedule(store, lambda: when).closed('quiz', 5, 'wrong', 3, 'first')\n"
        "print('scheduled', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script, str(data_dir)], capture_output=True, text=True, check=False
    )
    assert child.returncode == -signal.SIGKILL and child.stdout == "scheduled\n"
    assert os.path.exists(data_dir / "progress.db")
    with ProgressStore(data_dir) as store:
        due = ReviewSchedule(store, lambda: START + timedelta(minutes=2)).due()
        assert [(item.quiz_id, item.question) for item in due] == [("quiz", 5)]


def test_attempt_and_card_stand_or_fall_together(data_dir: Path, course_root: Path) -> None:
    """A failing schedule write leaves no attempt behind: the screen can say "not saved"."""
    from tui_course.content.session import QuizSession
    from tui_course.progress.recorder import QuizRecorder

    class Broken(ReviewSchedule):
        def closed(self, *args: object) -> None:
            raise RuntimeError("disk full")

    quiz = next(q for q in load_course(course_root).quizzes if q.id == "checkpoint")
    with ProgressStore(data_dir) as store:
        recorder = QuizRecorder(store, Broken(store, lambda: START))
        session = QuizSession.start(quiz, quiz.questions)
        session = session.begin()
        record = session.reveal()
        assert record is not None
        with pytest.raises(RuntimeError, match="disk full"):
            recorder.save(session, record)
        assert store.quiz_rows("checkpoint") == []
        QuizRecorder(store, ReviewSchedule(store, lambda: START)).save(session, record)
        assert len(store.quiz_rows("checkpoint")) == 1 and len(store.review_cards_all()) == 1


def test_a_write_lock_on_the_first_answer_loses_nothing(data_dir: Path, course_root: Path) -> None:
    """Another program holds the write lock (readers still pass) when a pass's first answer
    is saved: the answer fails after one wait, and the one made after the lock ends belongs
    to the quiz's first pass (it is there when the quiz opens again), never to no pass."""
    import sqlite3
    import time

    from tui_course.content.session import QuizSession
    from tui_course.progress.connection import ANSWER_TIMEOUT_MS
    from tui_course.progress.recorder import QuizRecorder, first_pass_states
    from tui_course.progress.store import DB_NAME, StoreWriteError

    quiz = next(q for q in load_course(course_root).quizzes if q.id == "checkpoint")
    with ProgressStore(data_dir) as store:
        recorder = QuizRecorder(store, ReviewSchedule(store, lambda: START))
        session = QuizSession.start(quiz, quiz.questions)
        session = session.begin()
        record = session.reveal()
        assert record is not None
        other = sqlite3.connect(data_dir / DB_NAME, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        start = time.monotonic()
        with pytest.raises(StoreWriteError):
            recorder.save(session, record)
        waited = time.monotonic() - start
        other.rollback()
        other.close()
        assert waited < 1.5 * ANSWER_TIMEOUT_MS / 1000  # one wait, not one per write
        recorder.save(session, record)
        first = store.first_run("checkpoint")
        assert first is not None and first[1] is False
        assert [row.run_id for row in store.quiz_rows("checkpoint")] == [first[0]]
        states = first_pass_states(store, "checkpoint", len(quiz.questions))
        assert states[0].outcome is not None and states[0].outcome.value == "revealed"
        assert len(store.review_cards_all()) == 1


def test_answers_after_a_reset_from_another_terminal_start_a_new_pass(
    data_dir: Path, course_root: Path
) -> None:
    """`attn-tui reset checkpoint` while the app is in the quiz: the next answers open a new
    first pass (seen when the quiz opens again), not rows under the removed run."""
    from tui_course.content.session import QuizSession
    from tui_course.progress.recorder import QuizRecorder, first_pass_states

    quiz = next(q for q in load_course(course_root).quizzes if q.id == "checkpoint")
    with ProgressStore(data_dir) as store:
        recorder = QuizRecorder(store, ReviewSchedule(store, lambda: START))
        session = QuizSession.start(quiz, quiz.questions)
        session = session.begin()
        for _ in range(2):
            record = session.reveal()
            assert record is not None
            recorder.save(session, record)
            session = session.apply(record)
            session = session.advance()
            if _ == 0:
                with ProgressStore(data_dir) as other:
                    other.forget_quiz("checkpoint")
        first = store.first_run("checkpoint")
        assert first is not None
        assert [row.run_id for row in store.quiz_rows("checkpoint")] == [first[0]]
        states = first_pass_states(store, "checkpoint", len(quiz.questions))
        assert list(states) == [1]  # question 2, answered after the reset
