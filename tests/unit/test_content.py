"""Loading lessons and quizzes: structure, order, sanitising untrusted text."""

from __future__ import annotations

import math
from pathlib import Path

from tui_course.answers import resolve
from tui_course.content.blocks.pe_table import PETableParams
from tui_course.content.course import load_course
from tui_course.content.kinds import grade
from tui_course.content.lessons import load_lesson
from tui_course.content.models import Kind, Lesson, Quiz
from tui_course.content.quizzes import load_quiz
from tui_course.content.segments import BlockSegment, MarkdownSegment
from tui_course.content.text import strip_control


def test_shipped_course_outline_places_quizzes_after_their_lessons(course_root: Path) -> None:
    course = load_course(course_root)
    outline = [item.id for item in course.outline()]
    assert outline == [
        "why-transformers",
        "context-matters",
        "self-attention",
        "queries-keys-values",
        "attention-lab",
        "multi-head",
        "positional-encoding",
        "pe-lab",
        "checkpoint",
        "exercises",
        "code",
        "encoder-block",
        "in-order",
        "why-transformers-won",
        "transformers-to-llms",
        "real-model-lab",
        "digit-lab",
        "training-lab",
        "takeaways",
        "understanding",
    ]
    assert [lesson.order for lesson in course.lessons] == list(range(1, 12))


def test_shipped_quizzes_cover_the_syllabus(course_root: Path) -> None:
    course = load_course(course_root)
    quizzes = {quiz.id: quiz for quiz in course.quizzes}
    assert set(quizzes) == {"checkpoint", "understanding", "exercises", "code", "in-order"}
    assert len(quizzes["understanding"].questions) >= 11
    kinds = {q.kind for quiz in course.quizzes for q in quiz.questions}
    assert kinds == set(Kind)
    numeric = [resolve(q) for q in quizzes["exercises"].questions if q.kind is Kind.NUMERIC]
    # keys are recomputed
    assert len(numeric) >= 3 and all(q.numeric_spec.answer_from for q in numeric)
    assert any(q.numeric_spec.tolerance > 0 for q in numeric)
    for question in numeric:  # a tolerance accepts the key's rounding, never a wrong number
        assert question.answer is not None
        key, tolerance = question.answer, question.numeric_spec.tolerance
        assert math.isfinite(tolerance) and 0 <= tolerance < abs(key), question.prompt
        assert grade(question, repr(key + tolerance / 2)).correct
        assert not grade(question, repr(key + 3 * tolerance + abs(key) / 1000)).correct
    assert all(q.explanation for quiz in course.quizzes for q in quiz.questions)


def test_lesson_segments_split_prose_blocks_and_keep_code(tmp_path: Path) -> None:
    path = tmp_path / "l.md"
    path.write_text(
        '+++\nid = "l"\ntitle = " Title "\norder = 3\n+++\n\nIntro.\n\n'
        "```python\nx = 1\n```\n\n```pe-table\npositions = 2\ndim = 4\n```\n\nAfter.\n",
        encoding="utf-8",
    )
    lesson = load_lesson(path, tmp_path)
    assert (lesson.id, lesson.title, lesson.order, lesson.path) == ("l", "Title", 3, "l.md")
    first, block, last = lesson.segments
    assert isinstance(first, MarkdownSegment) and "```python\nx = 1\n```" in first.text
    assert block == BlockSegment("pe-table", PETableParams(positions=2, dim=4), 13)
    assert last == MarkdownSegment("After.")


def test_control_characters_are_stripped_and_markup_kept_literal(tmp_path: Path) -> None:
    path = tmp_path / "q.toml"
    path.write_text(
        'id = "q"\ntitle = "T\\u001b[31mred"\n\n[[question]]\nkind = "text"\n'
        'prompt = "[bold]not bold[/bold] \\u009b2J"\nexplanation = "e\\u0007"\nanswer = "a"\n',
        encoding="utf-8",
    )
    quiz = load_quiz(path, tmp_path)
    assert quiz.title == "T[31mred"
    assert quiz.questions[0].prompt == "[bold]not bold[/bold] 2J"
    assert quiz.questions[0].explanation == "e"


def test_strip_control_keeps_text_tabs_and_newlines() -> None:
    assert strip_control("a\tb\r\nc\x1b[2Jd\x7f\x85é") == "a\tb\nc[2Jdé"


def test_outline_find_and_types(course_root: Path) -> None:
    course = load_course(course_root)
    assert isinstance(course.find("self-attention"), Lesson)
    assert isinstance(course.find("checkpoint"), Quiz)
    assert course.find("missing") is None
