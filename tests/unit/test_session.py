"""The quiz rules, on the plain session object: teach before telling, tries, records."""

from __future__ import annotations

import pytest

from tui_course.content.grading import AnswerFormatError
from tui_course.content.kinds import tries_allowed
from tui_course.content.models import DEFAULT_TRIES, Kind, Mistake, NumericSpec, Question, Quiz
from tui_course.content.session import Outcome, PassKind, Phase, QuestionState, QuizSession


def q(kind: Kind, **fields: object) -> Question:
    return Question(kind=kind, prompt="p", explanation="e", line=1, **fields)  # type: ignore[arg-type]


CHOICE = q(Kind.CHOICE, options=("a", "b", "c", "d"), answer=2, mistakes=(Mistake(3, "c!"),))
TWO = q(Kind.CHOICE, options=("yes", "no"), answer=1)
NUMERIC = q(
    Kind.NUMERIC, answer=0.67, numeric=NumericSpec(tolerance=0.005), hints=("h1", "h2"), tries=2
)
QUIZ = Quiz("x", "X", "x.toml", (CHOICE, TWO, NUMERIC), intro="Hello")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _same(session: QuizSession) -> QuizSession:
    """The session again, so the type checker forgets a phase it narrowed before a change."""
    return session


def answer(session: QuizSession, raw: str) -> tuple[QuizSession, Outcome]:
    """The session after `raw` is graded and saved, and the verdict it got."""
    verdict, record = session.answer(raw)
    return session.apply(record, verdict), record.verdict


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
    session = session.begin()
    session = _same(session)
    clock.now += 7
    verdict, record = session.answer("3")
    assert (record.verdict, record.try_number, record.final, record.seconds) == (
        Outcome.WRONG,
        1,
        False,
        7.0,
    )
    session = session.apply(record, verdict)
    assert session.phase is Phase.ASKING and not session.key_visible
    assert session.state.message == "c!"  # targeted feedback first
    session, outcome = answer(session, "1")
    assert outcome is Outcome.WRONG
    assert session.state.message is None  # no feedback for 1 and no hints: nothing to teach
    session, outcome = answer(session, "4")
    assert outcome is Outcome.WRONG  # the third and last try
    assert session.phase is Phase.CLOSED and session.key_visible
    assert session.state.outcome is Outcome.WRONG and not session.state.first_try_right


def test_next_hint_when_no_mistake_matches_and_hints_count_in_the_record() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    assert session.phase is Phase.ASKING  # a retry pass has no intro
    session, outcome = answer(session, "0.5")
    assert outcome is Outcome.WRONG
    assert session.state.message == "h1" and session.hints() == ("h1",)
    verdict, record = session.answer("0.67")
    assert record.hints_seen == 1 and record.try_number == 2 and record.final
    assert record.pass_kind is PassKind.RETRY
    session = session.apply(record, verdict)
    assert session.state.outcome is Outcome.RIGHT and session.right_count == 1
    assert session.first_try_count == 0


def test_reveal_and_skip_close_the_question_and_are_recorded() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, done={})
    session = session.begin()
    assert not session.hint_left and session.with_hint() is session  # no hints here
    record = session.reveal()
    assert record is not None and record.revealed and record.verdict is Outcome.REVEALED
    session = session.apply(record)
    assert session.key_visible and session.reveal() is None
    session = session.advance()
    skip = session.skip()
    assert skip is not None and skip.verdict is Outcome.SKIPPED and skip.final
    session = session.apply(skip)
    session = session.advance()
    session, outcome = answer(session, "2/3")
    assert outcome is Outcome.RIGHT  # fractions read as numbers
    session = session.advance()
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
    session = session.apply(skip)
    session = session.advance()
    assert session.index == 2 and session.tries_left == 1 and session.hints() == ("h1",)


def test_retry_pass_is_never_a_first_pass() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions)
    again = session.retry(range(3))
    assert again.kind is PassKind.RETRY and again.order == (0, 1, 2)
    record = again.reveal()
    assert record is not None and record.pass_kind is PassKind.RETRY


def test_the_same_wrong_answer_twice_costs_no_try() -> None:
    session = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    session, outcome = answer(session, "0,5")
    assert outcome is Outcome.WRONG
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        session.answer("1/2")  # the same number, written another way
    assert session.state.tries_used == 1 and session.tries_left == 1


def test_a_resumed_pass_knows_the_wrong_answers_given_before() -> None:
    """The store gives wrong answers as typed; the session compares them as graded."""
    done = {2: QuestionState(tries_used=1, tried=frozenset({"0,5"}))}
    session = QuizSession.start(QUIZ, QUIZ.questions, done=done)
    assert session.index == 0  # resumed at the first open question, no intro
    session = session.at_question(2)
    with pytest.raises(AnswerFormatError, match="tried that one already"):
        session.answer("1/2")  # 0,5 written another way
    session, outcome = answer(session, "0.6")
    assert outcome is Outcome.WRONG  # a new wrong answer still takes a try


def test_h_is_offered_only_while_a_hint_is_left() -> None:
    with_hint = Question(Kind.TEXT, "Name it", "", 1, answer=("it",), hints=("It is it.",))
    without = Question(Kind.TEXT, "Name that", "", 2, answer=("that",))
    quiz = Quiz("q", "Q", "q.toml", (with_hint, without))
    session = QuizSession.start(quiz, quiz.questions, PassKind.RETRY)
    assert session.hint_left
    session = session.with_hint()
    assert session.hints() == ("It is it.",)
    assert not session.hint_left  # the only hint is shown
    verdict, record = session.answer("it")
    session = session.apply(record, verdict)
    session = session.advance()
    assert session.question is without and not session.hint_left


def test_every_rule_returns_a_new_session_and_leaves_the_old_one_as_it_was() -> None:
    """A session is a value: an old one (what the screen drew) never changes under it."""
    clock = Clock()
    intro = QuizSession.start(QUIZ, QUIZ.questions, clock=clock)
    asking = intro.begin()
    assert asking is not intro and (intro.phase, asking.phase) == (Phase.INTRO, Phase.ASKING)
    verdict, record = asking.answer("3")
    taught = asking.apply(record, verdict)
    assert asking.state == QuestionState() and asking.states[0].tried == frozenset()
    assert taught.state.tries_used == 1 and taught.state.message == "c!"
    assert taught.state.tried == frozenset({record.answer})
    retry = QuizSession.start(QUIZ, QUIZ.questions, order=[2], kind=PassKind.RETRY)
    hinted = retry.with_hint()
    assert (retry.state.hints_seen, hinted.state.hints_seen) == (0, 1)
    skip = taught.skip()
    assert skip is not None
    closed = taught.apply(skip)
    moved = closed.advance()
    assert (closed.phase, closed.position) == (Phase.CLOSED, 0)
    assert (moved.phase, moved.position) == (Phase.ASKING, 1)
    assert not taught.state.closed and closed.state.closed


def test_a_resumed_pass_leaves_the_states_it_was_given_as_they_were() -> None:
    """The store's wrong answers are regraded into the new session, not into the caller's."""
    given = QuestionState(tries_used=1, tried=frozenset({"0,5"}))
    session = QuizSession.start(QUIZ, QUIZ.questions, done={2: given})
    assert given.tried == frozenset({"0,5"})
    assert session.states[2].tried == frozenset({repr(0.5)})


def test_the_pass_id_names_the_pass_and_the_shuffle_seed_draws_its_order() -> None:
    """Two first passes of one student share a seed (the same order when resumed) but
    are two passes; every change of one pass keeps its id; a retry draws a new seed."""
    one = QuizSession.start(QUIZ, QUIZ.questions, student_key="s1")
    two = QuizSession.start(QUIZ, QUIZ.questions, student_key="s1")
    assert one.shuffle_seed == two.shuffle_seed == "first"
    assert one.pass_id != two.pass_id
    assert [one.option_order(i) for i in range(3)] == [two.option_order(i) for i in range(3)]
    changed = one.begin().with_hint().advance()
    assert changed.pass_id == one.pass_id and changed.shuffle_seed == one.shuffle_seed
    again = one.retry(range(3))
    assert again.pass_id != one.pass_id and again.shuffle_seed != one.shuffle_seed
