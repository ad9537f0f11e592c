"""The quiz rules, on the plain session object: teach before telling, tries, records."""

from __future__ import annotations

import pytest

from tui_course.content.grading import AnswerFormatError
from tui_course.content.kinds import tries_allowed
from tui_course.content.models import DEFAULT_TRIES, Kind, Mistake, Question, Quiz
from tui_course.content.session import Outcome, PassKind, Phase, QuestionState, QuizSession


def q(kind: Kind, **fields: object) -> Question:
    return Question(kind=kind, prompt="p", explanation="e", line=1, **fields)  # type: ignore[arg-type]


CHOICE = q(Kind.CHOICE, options=("a", "b", "c", "d"), answer=2, mistakes=(Mistake(3, "c!"),))
TWO = q(Kind.CHOICE, options=("yes", "no"), answer=1)
NUMERIC = q(Kind.NUMERIC, answer=0.67, tolerance=0.005, hints=("h1", "h2"), tries=2)
QUIZ = Quiz("x", "X", "x.toml", (CHOICE, TWO, NUMERIC), intro="Hello")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _same(session: QuizSession) -> QuizSession:
    """The session again, so the type checker forgets a phase it narrowed before a change."""
    return session


def answer(session: QuizSession, raw: str) -> Outcome:
    verdict, record = session.answer(raw)
    session.apply(record, verdict)
    return record.verdict


def test_tries_default_quiz_and_question_level_and_two_options() -> None:
    assert tries_allowed(QUIZ, CHOICE) == DEFAULT_TRIES
    assert tries_allowed(QUIZ, TWO) == 1  # 2 options: a second try would be a sure thing
    assert tries_allowed(QUIZ, NUMERIC) == 2
    assert tries_allowed(Quiz("y", "Y", "y", (CHOICE,), tries=5), CHOICE) == 3  # options - 1
    assert tries_allowed(Quiz("y", "Y", "y", (NUMERIC,), tries=5), q(Kind.TEXT, answer=("a",))) == 5


def test_wrong_answer_teaches_and_hides_the_key_until_closed() -> None:
    clock = Clock()
    session = QuizSession.start(QUIZ, QUIZ.questions, clock=clock)
    assert session.phase is Phase.INTRO
    session.begin()
    session = _same(session)
    clock.now += 7
    verdict, record = session.answer("3")
    assert (record.verdict, record.try_number, record.final, record.seconds) == (
        Outcome.WRONG,
        1,
        False,
        7.0,
    )
    session.apply(record, verdict)
    assert session.phase is Phase.ASKING and not session.key_visible
    assert session.state.message == "c!"  # targeted feedback first
    assert answer(session, "1") is Outcome.WRONG
    assert session.state.message is None  # no feedback for 1 and no hints: nothing to teach
    assert answer(session, "4") is Outcome.WRONG  # the third and last try
    assert session.phase is Phase.CLOSED and session.key_visible
    assert session.state.outcome is Outcome.WRONG and not session.state.first_try_right


def test_next_hint_when_no_mistake_matches_and_hints_count_in_the_record() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    assert session.phase is Phase.ASKING  # a retry pass has no intro
    assert answer(session, "0.5") is Outcome.WRONG
    assert session.state.message == "h1" and session.hints() == ("h1",)
    verdict, record = session.answer("0.67")
    assert record.hints_seen == 1 and record.try_number == 2 and record.final
    assert record.pass_kind is PassKind.RETRY
    session.apply(record, verdict)
    assert session.state.outcome is Outcome.RIGHT and session.right_count == 1
    assert session.first_try_count == 0


def test_reveal_and_skip_close_the_question_and_are_recorded() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, done={})
    session.begin()
    assert session.show_hint() is None  # no hints on this question
    record = session.reveal()
    assert record is not None and record.revealed and record.verdict is Outcome.REVEALED
    session.apply(record)
    assert session.key_visible and session.reveal() is None
    session.advance()
    skip = session.skip()
    assert skip is not None and skip.verdict is Outcome.SKIPPED and skip.final
    session.apply(skip)
    session.advance()
    assert answer(session, "2/3") is Outcome.RIGHT  # fractions read as numbers
    session.advance()
    assert session.phase is Phase.FINISHED
    assert session.missed == (0, 1) and session.first_try_count == 1


def test_unreadable_answers_cost_no_try() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    with pytest.raises(AnswerFormatError):
        session.answer("abc")
    assert session.state.tries_used == 0


def test_resumed_first_pass_keeps_tries_and_skips_closed_questions() -> None:
    done = {
        0: QuestionState(tries_used=1, outcome=Outcome.RIGHT, first_try_right=True),
        2: QuestionState(tries_used=1, hints_seen=1),
    }
    session = QuizSession.start(QUIZ, QUIZ.questions, done=done)
    assert session.phase is Phase.ASKING and session.index == 1  # no intro, first open one
    skip = session.skip()
    assert skip is not None
    session.apply(skip)
    session.advance()
    assert session.index == 2 and session.tries_left == 1 and session.hints() == ("h1",)


def test_retry_pass_is_never_a_first_pass() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions)
    again = session.retry(range(3))
    assert again.kind is PassKind.RETRY and again.order == (0, 1, 2)
    record = again.reveal()
    assert record is not None and record.pass_kind is PassKind.RETRY


def test_the_same_wrong_answer_twice_costs_no_try() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    assert answer(session, "0,5") is Outcome.WRONG
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        session.answer("1/2")  # the same number, written another way
    assert session.state.tries_used == 1 and session.tries_left == 1


def test_a_resumed_pass_knows_the_wrong_answers_given_before() -> None:
    """The store gives wrong answers as typed; the session compares them as graded."""
    done = {2: QuestionState(tries_used=1, tried={"0,5"})}
    session = QuizSession.start(QUIZ, QUIZ.questions, done=done)
    assert session.index == 0  # resumed at the first open question, no intro
    session.position = 2
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        session.answer("1/2")  # 0,5 written another way
    assert answer(session, "0.6") is Outcome.WRONG  # a new wrong answer still takes a try


def test_h_is_offered_only_while_a_hint_is_left() -> None:
    with_hint = Question(Kind.TEXT, "Name it", "", 1, answer=("it",), hints=("It is it.",))
    without = Question(Kind.TEXT, "Name that", "", 2, answer=("that",))
    quiz = Quiz("q", "Q", "q.toml", (with_hint, without))
    session = QuizSession.start(quiz, quiz.questions, PassKind.RETRY)
    assert session.hint_left
    assert session.show_hint() == "It is it."
    assert not session.hint_left  # the only hint is shown
    verdict, record = session.answer("it")
    session.apply(record, verdict)
    session.advance()
    assert session.question is without and not session.hint_left
