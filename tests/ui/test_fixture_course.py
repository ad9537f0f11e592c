"""The UI tests' own course is valid and still carries every kind of piece they drive."""

from __future__ import annotations

import subprocess
import sys

from tests.ui.conftest import UI_COURSE, ui_course
from tui_course.content.blocks import BLOCKS
from tui_course.content.models import Kind
from tui_course.content.segments import BlockSegment, ListingRunner, ListingSegment
from tui_course.validation.course import validate


def test_the_ui_course_validates() -> None:
    report = validate(UI_COURSE)
    assert [str(problem) for problem in report.problems] == []
    done = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(UI_COURSE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("all valid")


def test_the_ui_course_has_every_block_and_question_kind() -> None:
    """A test that drives a figure or a question kind finds one here: a kind the app learns
    goes into the fixture too, or this fails."""
    course = ui_course()
    segments = [segment for lesson in course.lessons for segment in lesson.segments]
    blocks = {segment.name for segment in segments if isinstance(segment, BlockSegment)}
    assert blocks == set(BLOCKS)
    runners = {segment.runner for segment in segments if isinstance(segment, ListingSegment)}
    assert runners == set(ListingRunner)
    questions = [question for quiz in course.quizzes for question in quiz.questions]
    assert {question.kind for question in questions} == set(Kind)
    assert any(question.numeric_spec.answer_from for question in questions)
    assert any(question.mistakes for question in questions)
    assert any(question.hints for question in questions)
    assert all(quiz.after for quiz in course.quizzes)
    assert len(course.lessons) <= 6 and len(questions) <= 12  # small: Pilot tests pay little
