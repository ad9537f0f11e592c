"""Options shuffled per student and pass, on plain objects: the order, the mapped key, what
is stored, and that exports keep the file's order."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tui_course.classroom.gift.export import export_gift
from tui_course.content import kinds
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Mistake, Question, Quiz
from tui_course.content.session import PassKind, QuizSession
from tui_course.content.shuffle import (
    option_id,
    option_order,
    shown_answer,
    stored_answer,
)

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ("alpha", "beta", "gamma", "delta")
CHOICE = Question(
    Kind.CHOICE,
    "Which?",
    "Because.",
    1,
    options=OPTIONS,
    answer=2,
    mistakes=(Mistake(4, "Not delta."),),
)
MULTI = Question(Kind.MULTI, "Which ones?", "", 2, options=OPTIONS, answer=frozenset({1, 3}))
QUIZ = Quiz("q", "Q", "q.toml", (CHOICE, MULTI))


def test_an_order_is_a_permutation_fixed_by_its_seed() -> None:
    first = option_order("student|first|q|1", 4)
    assert sorted(first) == [1, 2, 3, 4]
    assert option_order("student|first|q|1", 4) == first
    orders = {option_order(f"student|pass{n}|q|1", 4) for n in range(30)}
    assert len(orders) > 5  # other passes, other orders


def test_the_shown_question_maps_the_key_and_the_mistakes() -> None:
    order = (3, 1, 4, 2)  # shown 1 is the file's 3 ...
    shown = kinds.of(CHOICE).shown(CHOICE, order)
    assert shown.options == ("gamma", "alpha", "delta", "beta")
    assert shown.answer == 4 and shown.options[shown.answer - 1] == "beta"
    assert shown.mistakes[0].answer == 3 and shown.options[2] == "delta"
    multi = kinds.of(MULTI).shown(MULTI, order)
    assert {multi.options[n - 1] for n in multi.answer} == {"alpha", "gamma"}


def test_stored_answers_name_the_options_not_their_positions() -> None:
    order = (3, 1, 4, 2)
    assert stored_answer("4", CHOICE, order) == option_id("beta")
    assert stored_answer("1,2", MULTI, order) == ",".join([option_id("alpha"), option_id("gamma")])
    other = (2, 4, 1, 3)  # the same option stored, read back for another order
    assert shown_answer(option_id("beta"), CHOICE, other) == "1"
    assert shown_answer("2", CHOICE, other) == "1"  # rows saved before shuffling: file numbers
    assert shown_answer("o:gone", CHOICE, other) == ""


def pass_of(kind: PassKind, student: str = "s1") -> QuizSession:
    session = QuizSession.start(QUIZ, QUIZ.questions, kind, student_key=student)
    session = session.begin()
    return session


def test_a_pass_keeps_its_order_and_retry_and_review_reshuffle() -> None:
    first = [pass_of(PassKind.FIRST).option_order(0) for _ in range(3)]
    assert first[0] == first[1] == first[2]  # stable for a student and a (resumed) first pass
    assert pass_of(PassKind.FIRST, "s2").option_order(0) != first[0] or (
        pass_of(PassKind.FIRST, "s3").option_order(0) != first[0]
    )  # another student, another order
    retries = {pass_of(PassKind.RETRY).option_order(0) for _ in range(20)}
    reviews = {pass_of(PassKind.REVIEW).option_order(0) for _ in range(20)}
    assert len(retries) > 1 and len(reviews) > 1


def test_the_session_grades_the_shown_numbers_and_stores_the_option() -> None:
    session = pass_of(PassKind.FIRST)
    shown = session.question
    right = shown.answer
    delta = shown.options.index("delta") + 1
    verdict, record = session.answer(str(delta))
    assert not verdict.correct and verdict.feedback == "Not delta."
    assert record.answer == option_id("delta")
    session = session.apply(record, verdict)
    verdict, record = session.answer(str(right))
    assert verdict.correct and record.answer == option_id("beta")
    assert verdict.expected == f"{right}. beta"  # the key as the student saw it


def test_a_resumed_pass_knows_the_stored_wrong_option_costs_no_new_try() -> None:
    session = pass_of(PassKind.FIRST)
    delta = session.question.options.index("delta") + 1
    verdict, record = session.answer(str(delta))
    session = session.apply(record, verdict)
    stored = replace(session.states[0], tried=frozenset({record.answer}))  # as the store has it
    resumed = QuizSession.start(QUIZ, QUIZ.questions, done={0: stored}, student_key="s1")
    try:
        resumed.answer(str(delta))
    except ValueError as error:
        assert "costs no try" in str(error)
    else:
        raise AssertionError("the same option twice cost a try")


def test_without_a_student_key_the_file_order_is_kept() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions)
    session = session.begin()
    assert session.question.options == OPTIONS
    _, record = session.answer("2")
    assert record.answer == option_id("beta")


def test_exports_keep_the_files_order() -> None:
    quiz = next(q for q in load_course(ROOT).quizzes if q.id == "checkpoint")
    text = export_gift([quiz])
    first = quiz.questions[0].options
    positions = [text.index(option[:40]) for option in first]
    assert positions == sorted(positions)
