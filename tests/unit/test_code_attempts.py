"""Every code check is an attempt: the store keeps the code, its hash and the named verdict,
and first-try, mastered and best treat a code question like any other."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tui_course.codecheck.service import attempt_of, code_hash, counts_as_attempt
from tui_course.content.code_check import CodeVerdict, Outcome
from tui_course.content.code_model import MAX_CODE_BYTES
from tui_course.content.grading import AnswerFormatError
from tui_course.content.quizzes import load_quiz
from tui_course.content.session import Outcome as Closed
from tui_course.content.session import Phase, QuizSession
from tui_course.progress.recorder import QuizRecorder
from tui_course.progress.store import SCHEMA_VERSION, ProgressStore
from tui_course.sandbox.level import Level

REPO = Path(__file__).resolve().parents[2]


def verdict(outcome: Outcome, mistake: int | None = None) -> CodeVerdict:
    failed = () if outcome is Outcome.PASSED else ("large scores",)
    return CodeVerdict(
        outcome, "x", "m", Level.BWRAP, mistake=mistake, cases_failed=failed, seconds=0.012
    )


def first_pass() -> QuizSession:
    quiz = load_quiz(REPO / "quizzes" / "write-the-code.toml", REPO)
    session = QuizSession.start(quiz, quiz.questions)
    session = session.begin()
    return session


def check(session: QuizSession, recorder: QuizRecorder, code: str, outcome: Outcome) -> QuizSession:
    """The session after a check of `code` is saved."""
    judged = verdict(outcome, 3)
    graded, record = session.answer_code(code, judged.passed, "feedback", attempt_of(code, judged))
    recorder.save(session, record)
    return session.apply(record, graded)


def test_checks_are_stored_with_code_hash_and_verdict(tmp_path: Path) -> None:
    session = first_pass()
    with ProgressStore(tmp_path) as store:
        recorder = QuizRecorder(store)
        session = check(
            session, recorder, "def attention_weights(Q, K):\n    return Q\n", Outcome.FAILED
        )
        assert session.phase is Phase.ASKING  # a failed check never closes a code question
        assert session.state.message == "feedback"
        with pytest.raises(AnswerFormatError):  # the same code again costs no try
            session.answer_code("def attention_weights(Q, K):\n    return Q   \n\n", False, None)
        huge = "# " + "x" * (MAX_CODE_BYTES * 2)
        session = check(session, recorder, huge, Outcome.ERROR)
        session = check(session, recorder, "right", Outcome.PASSED)
        assert session.state.outcome is Closed.RIGHT
        rows = store.code_checks("code")
        stats = store.quiz_stats("code", len(session.questions))
    assert [row.outcome for row in rows] == ["failed", "error", "passed"]
    assert rows[0].sha256 == code_hash("def attention_weights(Q, K):\n    return Q\n")
    assert rows[0].mistake == 3 and rows[0].cases_failed == ("large scores",)
    assert rows[0].sandbox == "bwrap" and rows[0].seconds == pytest.approx(0.012)
    assert len(rows[1].code.encode()) == MAX_CODE_BYTES and rows[1].sha256 == code_hash(huge)
    assert 1 in stats.mastered  # passed on the third check
    assert stats.tries == 3


def test_a_retry_never_raises_first_try(tmp_path: Path) -> None:
    session = first_pass()
    with ProgressStore(tmp_path) as store:
        recorder = QuizRecorder(store)
        session = check(session, recorder, "wrong", Outcome.FAILED)
        reveal = session.reveal()
        assert reveal is not None
        recorder.save(session, reveal)
        session = session.apply(reveal)
        for _ in range(1, len(session.questions)):
            session = session.advance()
            skip = session.skip()
            assert skip is not None
            recorder.save(session, skip)
            session = session.apply(skip)
        session = session.advance()
        recorder.finish(session)
        retry = session.retry([0])
        retry = check(retry, recorder, "right", Outcome.PASSED)
        recorder.finish(retry)
        stats = store.quiz_stats("code", len(session.questions))
    assert stats.first_try == 0
    assert 1 in stats.mastered


def test_a_version_2_store_gains_the_code_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    from tui_course.progress.schema import MIGRATIONS

    with sqlite3.connect(tmp_path / "progress.db") as conn:
        conn.executescript(MIGRATIONS[0] + MIGRATIONS[1])
        conn.execute(
            "INSERT INTO attempts (quiz_id, question_index, answer, correct, created_at)"
            " VALUES ('checkpoint', 1, '2', 1, '2026-01-01T00:00:00Z')"
        )
        conn.execute("PRAGMA user_version = 2")
    with ProgressStore(tmp_path) as store:
        assert [row.answer for row in store.all_rows()] == ["2"]
        assert store.code_checks() == []
    with sqlite3.connect(tmp_path / "progress.db") as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = {row[1] for row in conn.execute("PRAGMA table_info(attempts)")}
    assert version == SCHEMA_VERSION
    assert {"code", "code_sha256", "code_outcome", "code_sandbox"} <= columns


def test_the_submission_carries_each_questions_final_code(tmp_path: Path) -> None:
    from tui_course.classroom.submission import (
        build_submission,
        encode_submission,
        parse_submission,
    )
    from tui_course.content.course import load_course
    from tui_course.progress.report import progress_report

    session = first_pass()
    with ProgressStore(tmp_path) as store:
        recorder = QuizRecorder(store)
        session = check(session, recorder, "first try", Outcome.FAILED)
        session = check(session, recorder, "second try", Outcome.PASSED)
        payload = build_submission(progress_report(load_course(REPO), store), ["code"])
    submitted = parse_submission(encode_submission(payload))
    assert [(c.quiz_id, c.question, c.code, c.outcome) for c in submitted.code] == [
        ("code", 1, "second try", "passed")
    ]
    assert submitted.code[0].sha256 == code_hash("second try")


@pytest.mark.parametrize(
    ("outcome", "stage", "recorded"),
    [
        (Outcome.FAILED, "unfinished", False),  # the starter as it came: no try used
        (Outcome.ERROR, "syntax", False),  # code that does not parse: no try used
        (Outcome.UNAVAILABLE, "unavailable", False),
        (Outcome.UNAVAILABLE, "content", False),  # the question is broken, not the code
        (Outcome.FAILED, "values", True),
        (Outcome.FAILED, "mistake", True),
        (Outcome.ERROR, "exception", True),
        (Outcome.TIME_LIMIT, "time", True),
        (Outcome.PASSED, "passed", True),
    ],
)
def test_one_rule_says_which_checks_are_attempts(
    outcome: Outcome, stage: str, recorded: bool
) -> None:
    assert counts_as_attempt(CodeVerdict(outcome, stage, "m", Level.BWRAP)) is recorded
