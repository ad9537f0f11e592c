"""The recorder keeps one stored run per pass, named by the session's pass id: every session
a pass's changes make writes to the same run, and two passes are two runs even when they
draw their orders from the same seed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.session import PassKind, Phase, QuizSession
from tui_course.progress.recorder import QuizRecorder
from tui_course.progress.store import ProgressStore

QUESTIONS = tuple(
    Question(Kind.CHOICE, f"q{n}", "e", n, options=("a", "b", "c"), answer=1) for n in (1, 2)
)
QUIZ = Quiz("two", "Two", "two.toml", QUESTIONS)


def reveal_all(session: QuizSession, recorder: QuizRecorder) -> QuizSession:
    """Every question of the pass revealed, saved then applied as the views do."""
    session = session.begin()
    while True:
        record = session.reveal()
        assert record is not None
        recorder.save(session, record)
        session = session.apply(record).advance()
        if session.phase is Phase.FINISHED:
            recorder.finish(session)
            return session


def test_every_session_of_one_pass_writes_to_one_run(tmp_path: Path) -> None:
    with ProgressStore(tmp_path) as store:
        recorder = QuizRecorder(store)
        reveal_all(QuizSession.start(QUIZ, QUIZ.questions, PassKind.RETRY), recorder)
        rows = store.quiz_rows("two")
    assert len(rows) == 2 and rows[0].run_id == rows[1].run_id


def test_two_passes_with_one_seed_are_two_runs(tmp_path: Path) -> None:
    first = QuizSession.start(QUIZ, QUIZ.questions, PassKind.RETRY, student_key="s1")
    second = replace(
        QuizSession.start(QUIZ, QUIZ.questions, PassKind.RETRY, student_key="s1"),
        shuffle_seed=first.shuffle_seed,
    )
    assert second.option_order(0) == first.option_order(0)  # the same seed, the same order
    with ProgressStore(tmp_path) as store:
        recorder = QuizRecorder(store)
        one, other = first.begin(), second.begin()
        for session in (one, other):  # interleaved, as two open screens would
            record = session.reveal()
            assert record is not None
            recorder.save(session, record)
        rows = store.quiz_rows("two")
    assert len(rows) == 2 and rows[0].run_id != rows[1].run_id
