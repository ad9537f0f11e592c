"""`attn-tui validate`: load a content folder and prove what can be proved about it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui_course.answers import prove_quiz, resolve_quiz
from tui_course.classroom.lms_answers import moodle_differences
from tui_course.content import kinds
from tui_course.content.balance import key_warnings
from tui_course.content.course import load_course
from tui_course.content.errors import ContentError
from tui_course.content.models import Course
from tui_course.content.segments import BlockSegment
from tui_course.render.blocks import BlockError, render_block


@dataclass(frozen=True)
class Report:
    course: Course
    problems: tuple[ContentError, ...]
    # Questions whose answers Moodle cannot grade all alike after export (not an error here).
    notes: tuple[ContentError, ...] = ()
    warnings: tuple[ContentError, ...] = ()  # worth fixing, not wrong: validation still passes

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        questions = sum(len(quiz.questions) for quiz in self.course.quizzes)
        blocks = sum(
            isinstance(segment, BlockSegment)
            for lesson in self.course.lessons
            for segment in lesson.segments
        )
        return (
            f"{len(self.course.lessons)} lessons, {len(self.course.quizzes)} quizzes, "
            f"{questions} questions, {blocks} computed figures: all valid"
        )


def validate(root: Path) -> Report:
    course = load_course(root)
    problems = list(course.problems)
    notes: list[ContentError] = []
    warnings: list[ContentError] = []
    for quiz in course.quizzes:
        proved = prove_quiz(quiz)
        problems.extend(proved)
        if any(question.code is not None for question in quiz.questions):
            from tui_course.validation.code_questions import prove_code_quiz

            problems.extend(prove_code_quiz(quiz))
        if not proved:  # what Moodle would make of it, once its keys are sound
            refused, named = moodle_differences(quiz, resolve_quiz(quiz))
            problems.extend(refused)
            notes.extend(named)
        for number, question in enumerate(quiz.questions, start=1):
            problems.extend(
                ContentError(quiz.path, question.line, f"question {number}: {problem}")
                for problem in kinds.of(question).problems(question)
            )
        warnings.extend(ContentError(quiz.path, None, text) for text in key_warnings(quiz))
    for lesson in course.lessons:
        for segment in lesson.segments:
            if isinstance(segment, BlockSegment):
                try:
                    render_block(segment)
                except BlockError as error:
                    problems.append(
                        ContentError(lesson.path, segment.line, f"{segment.name} block: {error}")
                    )
                except Exception as error:  # whatever breaks a figure is reported, not raised
                    message = f"{segment.name} block: cannot be drawn: {error!r}"
                    problems.append(ContentError(lesson.path, segment.line, message))
    problems.sort(key=lambda p: (p.path, p.line or 0))
    return Report(course, tuple(problems), tuple(notes), tuple(warnings))
