"""The order kind (a Parsons problem) on plain objects: reading, proving, shuffling,
grading, the session's rules, arranging with keys, and the LMS exports."""

from __future__ import annotations

import html
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO
from tui_course.answers import read_number, resolve
from tui_course.classroom.gift.export import export_gift
from tui_course.classroom.lms_answers import ExportError
from tui_course.classroom.moodle_xml import export_moodle_xml
from tui_course.content import kinds
from tui_course.content.course import load_course
from tui_course.content.errors import ContentError
from tui_course.content.grading import AnswerFormatError
from tui_course.content.kinds import grade
from tui_course.content.kinds.order import OrderDraft
from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.quizzes import load_quiz
from tui_course.content.session import Outcome, PassKind, QuizSession
from tui_course.maths.positional import positional_encoding
from tui_course.progress.review import ReviewSchedule, review_session
from tui_course.progress.store import ProgressStore
from tui_course.validation.course import validate

SHIPPED = REPO / "quizzes" / "in-order.toml"

QUIZ = """\
id = "steps"
title = "Steps"

[[question]]
kind = "order"
prompt = "Order them."
lines = [
    "def f(x):",
    "    y = x + 1",
    "    return y",
    "# done",
]
hints = ["Names first.", "Return last."]
explanation = "Top to bottom."

[[question.mistake]]
answer = [1, 3, 2, 4]
feedback = "y must exist before it is returned."
"""


def write_quiz(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "quizzes"
    folder.mkdir(exist_ok=True)
    path = folder / "steps.toml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str = QUIZ) -> Quiz:
    return load_quiz(write_quiz(tmp_path, text), tmp_path)


def problem(tmp_path: Path, text: str) -> str:
    with pytest.raises(ContentError) as caught:
        load(tmp_path, text)
    said = str(caught.value)
    assert "\n" not in said  # one line
    return said


# reading and proving the key


def test_lines_load_with_their_indentation_and_the_key_is_their_order(tmp_path: Path) -> None:
    question = load(tmp_path).questions[0]
    assert question.kind is Kind.ORDER
    assert question.options == ("def f(x):", "    y = x + 1", "    return y", "# done")
    assert question.answer == (1, 2, 3, 4)
    assert question.mistakes[0].answer == (1, 3, 2, 4)
    assert question.line == 4


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            ('    "# done",\n', '    "    y = x + 1",\n'),
            "quizzes/steps.toml:7: question 1: line 4 is the same as line 2",
        ),
        (
            ('    "    return y",\n    "# done",\n', ""),
            "quizzes/steps.toml:7: question 1: needs between 3 and 9 lines, got 2",
        ),
        (('hints = ["Names', 'options = ["a"]\nhints = ["Names'), "unknown key 'options'"),
        (("answer = [1, 3, 2, 4]", "answer = [1, 2, 3, 4]"), "is the correct answer"),
        (("answer = [1, 3, 2, 4]", "answer = [1, 3, 3, 4]"), "must name each line 1 to 4 once"),
        (('    "# done",\n', '    "  ",\n'), "line 4 is empty"),
    ],
)
def test_a_bad_key_is_one_line_naming_file_and_line(
    tmp_path: Path, change: tuple[str, str], said: str
) -> None:
    text = QUIZ.replace(*change)
    assert text != QUIZ
    assert said in problem(tmp_path, text)
    assert problem(tmp_path, text).startswith("quizzes/steps.toml:")


def test_validate_proves_the_key_and_fails_a_bad_one_at_its_line(tmp_path: Path) -> None:
    write_quiz(tmp_path, QUIZ)
    (tmp_path / "lessons").mkdir()
    assert validate(tmp_path).ok
    write_quiz(tmp_path, QUIZ.replace('    "# done",\n', '    "def f(x):",\n'))
    report = validate(tmp_path)
    assert [str(p) for p in report.problems] == [
        "quizzes/steps.toml:7: question 1: line 4 is the same as line 1:"
        " the order would be ambiguous"
    ]
    done = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode != 0
    assert "quizzes/steps.toml:7: question 1: line 4 is the same as line 1" in done.stdout + (
        done.stderr
    )


def test_validate_refuses_a_kind_whose_unshuffled_order_is_the_key() -> None:
    kind = kinds.kind_of(Kind.ORDER)
    question = Question(Kind.ORDER, "p", "e", 1, options=("a", "b", "c"), answer=(1, 2, 3))
    assert kind.problems(question) == []  # the shown order never is the key...
    assert kind.item_order(question, None) != (1, 2, 3)


# shuffling


def test_the_shuffle_is_per_student_and_never_the_key(tmp_path: Path) -> None:
    question = load(tmp_path).questions[0]
    kind = kinds.of(question)
    orders = {kind.item_order(question, f"student-{n}|first|steps|1") for n in range(300)}
    assert (1, 2, 3, 4) not in orders
    assert len(orders) > 10  # students see different orders
    assert all(sorted(order) == [1, 2, 3, 4] for order in orders)
    same = kind.item_order(question, "student-1|first|steps|1")
    assert same == kind.item_order(question, "student-1|first|steps|1")  # resumed: the same
    three = Question(Kind.ORDER, "p", "e", 1, options=("a", "b", "c"), answer=(1, 2, 3))
    assert all(
        kind.item_order(three, f"s{n}") != (1, 2, 3) for n in range(300)
    )  # 1 in 6 draws is the key: each is turned one place round


def test_shown_question_renumbers_key_and_mistakes(tmp_path: Path) -> None:
    question = load(tmp_path).questions[0]
    kind = kinds.of(question)
    order = (3, 1, 4, 2)  # shown position -> file line
    shown = kind.shown(question, order)
    assert shown.options == ("    return y", "def f(x):", "# done", "    y = x + 1")
    assert shown.answer == (2, 4, 1, 3)  # the shown numbers, top to bottom, when right
    assert shown.mistakes[0].answer == (2, 1, 4, 3)
    assert grade(shown, "2 4 1 3").correct


# grading


def test_grading_by_position_names_the_first_line_out_of_place(tmp_path: Path) -> None:
    question = load(tmp_path).questions[0]
    assert grade(question, "1 2 3 4").correct
    assert grade(question, "1,2,3,4").correct
    wrong = grade(question, "1 2 4 3")
    assert not wrong.correct
    assert wrong.feedback == (
        'The first 2 lines are in place; then "return y" should come before "# done".'
    )
    first = grade(question, "2 1 3 4")
    assert first.feedback == '"def f(x):" comes first, before "y = x + 1".'
    assert grade(question, "1 3 2 4").feedback == "y must exist before it is returned."
    assert wrong.expected == "1 2 3 4"


@pytest.mark.parametrize(
    "typed", ["1 2 3", "1 2 3 4 4", "1 2 2 4", "a b c d", "1 2 3 5", "0 1 2 3"]
)
def test_an_answer_that_is_not_an_order_is_a_one_line_help(tmp_path: Path, typed: str) -> None:
    question = load(tmp_path).questions[0]
    with pytest.raises(AnswerFormatError) as caught:
        grade(question, typed)
    assert str(caught.value).startswith("Type the line numbers 1 to 4 in the order")


def test_the_positional_encoding_question_key_is_the_apps_own_function() -> None:
    """The shipped key, run as Python, computes what tui_course.maths computes."""
    question = load_quiz(SHIPPED).questions[2]
    source = "\n".join(question.options[n - 1] for n in question.answer)
    scope: dict[str, object] = {"np": np}
    exec(source, scope)
    function = scope["positional_encoding"]
    assert callable(function)
    assert np.allclose(function(7, 6), positional_encoding(7, 6))


# the session's rules


def session_for(quiz: Quiz, student: str | None = "s1") -> QuizSession:
    session = QuizSession.start(quiz, quiz.questions, student_key=student)
    session = session.begin()
    return session


def test_tries_hints_and_a_repeat_costing_nothing(tmp_path: Path) -> None:
    session = session_for(load(tmp_path))
    shown = session.question
    right = " ".join(str(n) for n in shown.answer)
    wrong_order = list(shown.answer)
    wrong_order[1], wrong_order[2] = wrong_order[2], wrong_order[1]
    wrong = " ".join(str(n) for n in wrong_order)
    verdict, record = session.answer(wrong)
    assert not verdict.correct and record.try_number == 1 and not record.final
    assert record.answer.startswith("l:") and record.answer.count(",") == 3
    session = session.apply(record, verdict)
    assert session.state.message == "y must exist before it is returned."
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        session.answer(wrong)
    session = session.with_hint()
    assert session.hints() == ("Names first.",)
    verdict, record = session.answer(right)
    assert verdict.correct and record.final and record.try_number == 2
    session = session.apply(record, verdict)
    assert session.state.outcome is Outcome.RIGHT


def test_the_stored_answer_names_lines_whatever_order_they_were_shown_in(
    tmp_path: Path,
) -> None:
    quiz = load(tmp_path)
    stored = set()
    for student in ("ann", "bob", "cy", "dee"):
        session = session_for(quiz, student)
        right = " ".join(str(n) for n in session.question.answer)
        stored.add(session.answer(right)[1].answer)
        back = kinds.of(quiz.questions[0]).shown_answer(
            session.answer(right)[1].answer, quiz.questions[0], session.option_order(0)
        )
        assert back == right
    assert len(stored) == 1  # the same right order, stored the same for every student


def test_a_resumed_pass_keeps_its_tried_order(tmp_path: Path) -> None:
    quiz = load(tmp_path)
    first = session_for(quiz)
    shown = first.question
    wrong = " ".join(str(n) for n in reversed(shown.answer))
    verdict, record = first.answer(wrong)
    first = first.apply(record, verdict)
    resumed = QuizSession.start(
        quiz, quiz.questions, done={0: first.states[0]}, student_key="s1"
    )  # the same student's first pass: the same order
    assert resumed.question.options == shown.options
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        resumed.answer(wrong)


def test_single_choice_limits_stay_theirs_and_order_keeps_the_quiz_tries(tmp_path: Path) -> None:
    quiz = load(tmp_path)
    assert kinds.tries_allowed(quiz, quiz.questions[0]) == 3


# arranging with keys


def test_a_draft_picks_then_puts_and_carries_with_up_down() -> None:
    draft = OrderDraft((1, 2, 3, 4))
    assert draft.raw() == ""  # nothing moved: no order to check yet (it is never the key)
    assert draft.press(5) is None
    picked = draft.press(3)
    assert picked is not None and picked.picked == 3
    moved = picked.press(1)
    assert moved is not None and moved.arranged == (3, 1, 2, 4) and moved.picked is None
    assert moved.raw() == "3 1 2 4"
    put_back = moved.press(2)
    assert put_back is not None
    dropped = put_back.press(2)
    assert dropped is not None and dropped.picked is None and dropped.arranged == (3, 1, 2, 4)
    carried = moved.step(1, carry=False).step(1, carry=True)  # highlight 2, carry it down
    assert carried.arranged == (3, 2, 1, 4) and carried.picked == 3 and carried.cursor == 3
    assert carried.step(1, carry=True).arranged == (3, 2, 4, 1)
    top = OrderDraft((1, 2, 3)).step(-1, carry=True)
    assert top.arranged == (1, 2, 3)  # the top stops it
    question = Question(Kind.ORDER, "p", "e", 1, options=("a", "  b", "c"), answer=(1, 2, 3))
    rows = OrderDraft((2, 1, 3), cursor=1, picked=1).rows(question, closed=False)
    assert [(r.marker, r.text) for r in rows] == [
        ("> 1.* ", "  b"),
        ("  2.  ", "a"),
        ("  3.  ", "c"),
    ]
    closed = OrderDraft((2, 1, 3)).rows(question, closed=True)
    assert [r.text for r in closed] == [
        "  b  <- belongs at 2",
        "a  <- belongs at 1",
        "c  <- right place",
    ]


# review, LMS


def test_review_brings_a_missed_order_question_back(data_dir: Path, course_root: Path) -> None:
    course = load_course(course_root)
    start = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    with ProgressStore(data_dir) as store:
        ReviewSchedule(store, lambda: start).closed("in-order", 2, "wrong", 3, "first")
        session = review_session(
            course, store, start + timedelta(minutes=2), resolve, read_number, "s1"
        )
        assert session is not None and session.kind is PassKind.REVIEW
        session = session.begin()
        assert session.question.kind is Kind.ORDER
        right = " ".join(str(n) for n in session.question.answer)
        verdict, record = session.answer(right)
        assert verdict.correct and (record.quiz_id, record.question) == ("in-order", 2)


def test_moodle_xml_writes_an_ordering_question() -> None:
    quiz = load_quiz(SHIPPED)
    root = ET.fromstring(export_moodle_xml([quiz]))
    _, *questions = root.findall("question")
    assert [q.attrib["type"] for q in questions] == ["ordering"] * 3
    encoder = questions[1]
    answers = encoder.findall("answer")
    assert [float(a.attrib["fraction"]) for a in answers] == [1, 2, 3, 4, 5, 6, 7]
    texts = [html.unescape(a.findtext("text") or "") for a in answers]  # inert HTML
    assert texts[0] == "def call(self, inputs, mask=None):"
    assert texts[2] == "\u00a0" * 8 + "mask = mask[:, tf.newaxis, :]"  # indentation kept in HTML
    assert encoder.findtext("gradingtype") == "ALL_OR_NOTHING"
    assert encoder.findtext("layouttype") == "VERTICAL" and encoder.findtext("selecttype") == "ALL"
    assert len(encoder.findall("hint")) == 2


def test_gift_refuses_an_order_question_and_export_leaves_it_out_with_a_note(
    tmp_path: Path,
) -> None:
    with pytest.raises(ExportError, match="GIFT has no ordering question"):
        export_gift([load_quiz(SHIPPED)])
    out = tmp_path / "out.gift"
    done = subprocess.run(
        [sys.executable, "-m", "tui_course", "export", "--format", "gift", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=REPO,
        env={"ATTN_TUI_CONFIG": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert (
        "note: order questions are not exported: GIFT has no ordering question"
        " (export them with --format moodle-xml) (in-order q1, in-order q2, in-order q3)"
    ) in done.stderr
    written = out.read_text(encoding="utf-8")
    assert "in-order" not in written and "Put the steps of scaled" not in written
    assert "::understanding q1::" in written  # the rest is there
