"""Each question kind lays out its own LMS export (content/kinds), so the GIFT and Moodle
XML writers name no kind: they write the rows a kind gives, by the rows' form."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tui_course.classroom.lms_answers import moodle_question
from tui_course.content import kinds
from tui_course.content.kinds.lms import ExportError, LmsForm, LmsRow, MoodleField
from tui_course.content.models import Kind, Mistake, NumericSpec, Question

REPO = Path(__file__).resolve().parents[2]
LMS_WRITERS = [
    REPO / "tui_course" / "classroom" / "lms_answers.py",
    REPO / "tui_course" / "classroom" / "moodle_xml.py",
    REPO / "tui_course" / "classroom" / "gift" / "export.py",
]


@pytest.mark.parametrize("kind", list(Kind))
def test_every_kind_has_an_lms_export_or_says_why_not(kind: Kind) -> None:
    question_kind = kinds.kind_of(kind)
    if question_kind.moodle_type is None:
        assert question_kind.no_moodle and question_kind.no_gift
        question = Question(kind, "p", "e", 1)
        with pytest.raises(ExportError, match=question_kind.no_moodle):
            question_kind.lms_answers(question)
    else:
        assert isinstance(question_kind.lms_form, LmsForm)
        assert all(isinstance(field, MoodleField) for field in question_kind.moodle_fields())


def test_the_lms_writers_name_no_kind() -> None:
    named = [
        f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}"
        for path in LMS_WRITERS
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Kind"
    ]
    assert named == []


def test_multi_places_feedback_only_on_the_key_plus_one_wrong_option() -> None:
    question = Question(
        Kind.MULTI,
        "Pick",
        "Because",
        1,
        options=("a", "b", "c", "d"),
        answer=frozenset({1, 2}),
        mistakes=(
            Mistake(frozenset({1, 2, 3}), "c is not one"),
            Mistake(frozenset({1}), "b is one too"),
            Mistake(frozenset({1, 2, 3, 4}), "not all"),
        ),
    )
    moodle = moodle_question(question)
    assert moodle.answers == (
        LmsRow("a", 50.0),
        LmsRow("b", 50.0),
        LmsRow("c", -50.0, "c is not one"),
        LmsRow("d", -50.0),
    )
    assert [m.feedback for m in moodle.unplaced] == ["b is one too", "not all"]


def test_numeric_rows_share_one_margin_and_keep_the_mistakes() -> None:
    question = Question(
        Kind.NUMERIC,
        "How much?",
        "So much.",
        1,
        answer=28.0,
        numeric=NumericSpec(rel_tolerance=0.01, also_accepted=(29.0,)),
        mistakes=(Mistake(30.0, "one too many"),),
    )
    rows = kinds.of(question).lms_answers(question).rows
    assert rows == (
        LmsRow("28.0", 100.0, "", 0.28),
        LmsRow("29.0", 100.0, "", 0.28),
        LmsRow("30.0", 0.0, "one too many", 0.28),
    )


def test_a_numeric_key_moodle_would_round_away_is_refused_and_named() -> None:
    question = Question(
        Kind.NUMERIC, "p", "e", 1, answer=1.2345678901234567, numeric=NumericSpec(tolerance=1e-17)
    )
    kind = kinds.of(question)
    with pytest.raises(ExportError, match="14 significant digits"):
        kind.lms_answers(question)
    assert len(kind.moodle_gaps(question).refused) == 1


def test_text_rows_give_each_key_s_forms_right_and_each_mistake_s_forms_wrong() -> None:
    question = Question(
        Kind.TEXT,
        "Which?",
        "Those.",
        1,
        answer=("x0, x1",),
        mistakes=(Mistake(("the street",), "not that one"),),
    )
    answers = kinds.of(question).lms_answers(question)
    right = [row.text for row in answers.rows if row.value == 100]
    wrong = [(row.text, row.feedback) for row in answers.rows if row.value == 0]
    assert right[0] == "x0, x1" and {"x0,x1", "[x0, x1]", "x[0], x[1]", "x0-x1"} <= set(right)
    assert wrong == [("the street", "not that one"), ("the street.", "not that one")]
    assert answers.unplaced == ()
