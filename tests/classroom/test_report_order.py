"""The class report counts an order question like any other: a student's first pass over
the shipped order quiz, stored, submitted and read back as first-try and mastered scores."""

from __future__ import annotations

from pathlib import Path

from tests.classroom.conftest import drop
from tests.conftest import REPO
from tui_course.classroom.report import build_report, report_csv
from tui_course.classroom.submission import build_submission, login_name
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Quiz
from tui_course.content.session import QuizSession
from tui_course.progress.recorder import QuizRecorder
from tui_course.progress.report import progress_report
from tui_course.progress.store import ProgressStore


def test_an_order_quiz_is_reported_like_any_other(tmp_path: Path, class_dir: Path) -> None:
    course = load_course(REPO)
    quiz = course.find("in-order")
    assert isinstance(quiz, Quiz) and {q.kind for q in quiz.questions} == {Kind.ORDER}
    with ProgressStore(tmp_path / "data") as store:
        recorder = QuizRecorder(store)
        session = QuizSession.start(quiz, quiz.questions, student_key="s1")
        session = session.begin()
        for index in range(3):
            shown = session.question
            right = " ".join(str(n) for n in shown.answer)
            if index == 1:  # the second: the order as shown first (never right), then right
                as_shown = " ".join(str(n) for n in range(1, len(shown.options) + 1))
                verdict, record = session.answer(as_shown)
                recorder.save(session, record)
                session = session.apply(record, verdict)
            verdict, record = session.answer(right)
            assert verdict.correct
            recorder.save(session, record)
            session = session.apply(record, verdict)
            session = session.advance()
        recorder.finish(session)
        payload = build_submission(progress_report(course, store), ["in-order"], login_name())
    drop(class_dir / "dropbox", "s1.json", payload)
    report = build_report(class_dir / "dropbox", ["in-order"])
    result = report.students[login_name()].result("in-order")
    assert result is not None and (result.first_try, result.mastered) == (2, 3)
    assert "in-order first_try" in report_csv(report)
