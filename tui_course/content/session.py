"""One pass through a quiz as a plain object: the whole state the quiz screen draws.

The rules live here, free of UI, so they are tested directly: a wrong answer
teaches before it tells (targeted feedback, else the next hint), the key and
explanation appear only once a question is closed (right, out of tries, or
revealed on request), and every change the store must keep comes out as an
AttemptRecord that the caller saves before applying it.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from tui_course.content import kinds
from tui_course.content.code_model import CodeAttempt
from tui_course.content.grading import (
    AnswerFormatError,
    NumberReader,
    Verdict,
    parse_number,
)
from tui_course.content.kinds import grade, tries_allowed
from tui_course.content.models import Question, Quiz

MAX_ANSWER_CHARS = 200  # an answer is stored as typed, up to this length


class PassKind(StrEnum):
    FIRST = "first"  # the pass a teacher grades
    RETRY = "retry"  # missed ones again, or the whole quiz again
    REVIEW = "review"  # due questions from the review queue


class Phase(StrEnum):
    INTRO = "intro"  # the quiz's intro, before question 1
    ASKING = "asking"  # the current question takes answers
    CLOSED = "closed"  # the current question is over: key and explanation shown
    FINISHED = "finished"  # past the last question


class Outcome(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    REVEALED = "revealed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class AttemptRecord:
    """One row of the store's attempts table."""

    quiz_id: str
    question: int  # 1-based number in the quiz
    answer: str  # as typed, capped at MAX_ANSWER_CHARS
    verdict: Outcome
    try_number: int
    hints_seen: int
    revealed: bool
    seconds: float
    pass_kind: PassKind
    final: bool  # this row closed the question for this pass
    code: CodeAttempt | None = None  # a code question's check


@dataclass
class QuestionState:
    tries_used: int = 0
    hints_seen: int = 0
    outcome: Outcome | None = None  # set when the question closes
    first_try_right: bool = False
    last_answer: str = ""
    verdict: Verdict | None = None  # the last graded answer
    message: str | None = None  # what the last wrong answer taught (feedback or hint)
    tried: set[str] = field(default_factory=set)  # wrong answers given, as graded

    @property
    def closed(self) -> bool:
        return self.outcome is not None


Clock = Callable[[], float]


@dataclass
class QuizSession:
    """The state of one pass; the widget holds it and redraws after each change."""

    quiz: Quiz
    questions: tuple[Question, ...]  # the quiz's questions with numeric keys resolved
    order: tuple[int, ...]  # 0-based indexes asked in this pass
    kind: PassKind = PassKind.FIRST
    phase: Phase = Phase.ASKING
    position: int = 0
    states: dict[int, QuestionState] = field(default_factory=dict)
    read_number: NumberReader = parse_number
    clock: Clock = time.monotonic
    _since: float = 0.0  # clock reading when the current question's timer last restarted
    # a review pass mixes quizzes: each index maps back to its quiz and question number
    review_of: dict[int, str] = field(default_factory=dict)
    review_numbers: dict[int, int] = field(default_factory=dict)
    # Options are shown in an order drawn from (student, pass, question); None: file order.
    student_key: str | None = None
    pass_key: str = "first"  # the first pass keeps one order however often it is resumed

    @classmethod
    def start(
        cls,
        quiz: Quiz,
        questions: tuple[Question, ...],
        kind: PassKind = PassKind.FIRST,
        order: Iterable[int] | None = None,
        done: Mapping[int, QuestionState] | None = None,
        read_number: NumberReader = parse_number,
        clock: Clock = time.monotonic,
        student_key: str | None = None,
    ) -> QuizSession:
        """A new pass; `done` holds questions already closed in it (a resumed first pass).

        A fresh first pass opens on the intro; a resumed one at its first open question.
        With `student_key`, options are shuffled for that student: the first pass always
        the same way, every other pass anew.
        """
        asked = tuple(range(len(questions)) if order is None else order)
        states = {index: QuestionState() for index in asked}
        states.update(done or {})
        session = cls(quiz, questions, asked, kind, states=states, read_number=read_number)
        session.clock = clock
        session.student_key = student_key
        if kind is not PassKind.FIRST:
            import secrets  # here: a first pass (what a returning student reopens) needs none

            session.pass_key = secrets.token_hex(8)
        for index, state in (done or {}).items():  # resumed: the stored wrong answers, as graded
            if 0 <= index < len(questions):
                state.tried = {session._regraded(index, raw) for raw in state.tried}
        open_positions = [p for p, index in enumerate(asked) if not states[index].closed]
        if not open_positions:
            session.phase = Phase.FINISHED
            session.position = len(asked) - 1
        elif kind is PassKind.FIRST and not done:
            session.phase = Phase.INTRO
        else:
            session.position = open_positions[0]
        session._since = clock()
        return session

    # where we are

    @property
    def index(self) -> int:
        return self.order[self.position]

    @property
    def question(self) -> Question:
        """The current question as shown: its options in this pass's order for the student."""
        return self.shown(self.index)

    def option_order(self, index: int) -> tuple[int, ...]:
        """Shown position -> the file's option number, for question `index` in this pass."""
        question = self.questions[index]
        quiz_id = self.review_of.get(index, self.quiz.id)
        seed = None
        if self.student_key is not None:
            seed = f"{self.student_key}|{self.pass_key}|{quiz_id}|{self.review_number(index)}"
        return kinds.of(question).item_order(question, seed)

    def shown(self, index: int) -> Question:
        question = self.questions[index]
        return kinds.of(question).shown(question, self.option_order(index))

    @property
    def state(self) -> QuestionState:
        return self.states[self.index]

    @property
    def number(self) -> int:
        """1-based number of the current question within its quiz (a review's too)."""
        return self.review_number(self.index)

    @property
    def is_full_run(self) -> bool:
        return len(self.order) == len(self.questions)

    @property
    def tries_allowed(self) -> int:
        return tries_allowed(self.quiz, self.question)

    @property
    def tries_left(self) -> int:
        return self.tries_allowed - self.state.tries_used

    @property
    def key_visible(self) -> bool:
        """The key and explanation show only once the question is closed."""
        return self.phase is Phase.CLOSED

    @property
    def hint_left(self) -> bool:
        """The current question takes answers and has a hint not yet shown (the footer
        offers h only then)."""
        if self.phase is not Phase.ASKING:
            return False
        return self.state.hints_seen < len(self.question.hints)

    def hints(self) -> tuple[str, ...]:
        """The hints seen so far for the current question."""
        return self.question.hints[: self.state.hints_seen]

    # changes: each returns the record to save first (or None), then apply() it

    def begin(self) -> None:
        """Leave the intro for question 1."""
        if self.phase is Phase.INTRO:
            self.phase = Phase.ASKING
            self._since = self.clock()

    def show_hint(self) -> str | None:
        """The next hint, or None when there is none left (or the question is closed)."""
        if self.phase is not Phase.ASKING:
            return None
        state = self.state
        if state.hints_seen >= len(self.question.hints):
            return None
        state.hints_seen += 1
        return self.question.hints[state.hints_seen - 1]

    def answer(self, raw: str) -> tuple[Verdict, AttemptRecord]:
        """Grade an answer without changing anything; raises AnswerFormatError."""
        if self.phase is not Phase.ASKING:
            raise ValueError("this question is not taking answers")
        verdict = grade(self.question, raw, self.read_number)
        state = self.state
        if not verdict.correct and self._as_graded(raw, verdict) in state.tried:
            raise AnswerFormatError("You tried that one already: it costs no try. Try another.")
        try_number = state.tries_used + 1
        final = verdict.correct or try_number >= self.tries_allowed
        outcome = Outcome.RIGHT if verdict.correct else Outcome.WRONG
        question = self.questions[self.index]  # stored: what was picked, not where shown
        answer = kinds.of(question).stored_answer(raw, question, self.option_order(self.index))
        return verdict, self._record(answer, outcome, try_number, final=final)

    def answer_code(
        self, code: str, passed: bool, feedback: str | None, attempt: CodeAttempt | None = None
    ) -> tuple[Verdict, AttemptRecord]:
        """A code check as an answer (the sandbox and the judge ran it already, off this
        object). Code is fixed, not guessed: a failed check never closes the question (a
        pass or a reveal does), and the same code checked again, but for trailing spaces,
        costs no try. The answer kept is the code's hash; `attempt` (the code, its verdict)
        rides on the record for the store."""
        if self.phase is not Phase.ASKING or not kinds.of(self.question).checked:
            raise ValueError("this question is not taking code")
        key = code_key(code)
        if not passed and key in self.state.tried:
            raise AnswerFormatError("You checked this code already: it costs no try. Change it.")
        verdict = Verdict(passed, expected="the model solution", feedback=feedback)
        outcome = Outcome.RIGHT if passed else Outcome.WRONG
        record = self._record(key, outcome, self.state.tries_used + 1, final=passed)
        return verdict, dataclasses.replace(record, code=attempt)

    def reveal(self) -> AttemptRecord | None:
        """The record for asking to see the key (None when it already shows)."""
        if self.phase is not Phase.ASKING:
            return None
        return self._record("", Outcome.REVEALED, self.state.tries_used, final=True)

    def skip(self) -> AttemptRecord | None:
        """The record for leaving an open question unanswered (None when nothing to say)."""
        if self.phase is not Phase.ASKING:
            return None
        return self._record("", Outcome.SKIPPED, self.state.tries_used, final=True)

    def apply(self, record: AttemptRecord, verdict: Verdict | None = None) -> None:
        """Take in a saved record: count the try, teach or close the question."""
        state = self.state
        self._since = self.clock()
        if record.verdict in (Outcome.RIGHT, Outcome.WRONG):
            if verdict is not None and record.verdict is Outcome.WRONG:
                state.tried.add(self._as_graded(record.answer, verdict, stored=True))
            state.tries_used = record.try_number
            state.last_answer = record.answer
            state.verdict = verdict
            if record.try_number == 1:
                state.first_try_right = record.verdict is Outcome.RIGHT
        state.message = None
        if record.final:
            state.outcome = record.verdict
            self.phase = Phase.CLOSED
        elif verdict is not None:
            state.message = verdict.feedback or self.show_hint()

    def _as_graded(
        self, raw: str, verdict: Verdict, index: int | None = None, stored: bool = False
    ) -> str:
        """An answer as grading sees it, so "0,5" and "1/2" count as the same try, and a
        picked option is the same option wherever it was shown (its stored id)."""
        index = self.index if index is None else index
        question = self.questions[index]
        if verdict.read_as is not None:
            return repr(verdict.read_as)
        kind = kinds.of(question)
        if stored:  # a saved record's answer names what was picked, not where it showed
            return kind.stored_as_graded(raw, question)
        return kind.as_graded(raw, question, self.option_order(index))

    def _regraded(self, index: int, raw: str) -> str:
        """A stored wrong answer in the form `tried` keeps, for a resumed pass."""
        question = self.shown(index)
        kind = kinds.of(question)
        if kind.checked:
            return kind.stored_as_graded(raw, question)  # graded by its check, not here
        typed = kind.shown_answer(raw, self.questions[index], self.option_order(index))
        try:
            verdict = grade(question, typed, self.read_number)
        except AnswerFormatError:
            return raw
        return self._as_graded(typed, verdict, index)

    def advance(self) -> None:
        """On to the next open question, or to the end."""
        for position in range(self.position + 1, len(self.order)):
            if not self.states[self.order[position]].closed:
                self.position = position
                self.phase = Phase.ASKING
                self._since = self.clock()
                return
        self.phase = Phase.FINISHED

    def _record(self, answer: str, outcome: Outcome, try_number: int, final: bool) -> AttemptRecord:
        quiz_id = self.review_of.get(self.index, self.quiz.id)
        return AttemptRecord(
            quiz_id=quiz_id,
            question=self.review_number(self.index),
            answer=answer[:MAX_ANSWER_CHARS],
            verdict=outcome,
            try_number=try_number,
            hints_seen=self.state.hints_seen,
            revealed=outcome is Outcome.REVEALED,
            seconds=round(max(0.0, self.clock() - self._since), 3),
            pass_kind=self.kind,
            final=final,
        )

    def review_number(self, index: int) -> int:
        return self.review_numbers.get(index, index + 1)

    # results

    @property
    def first_try_count(self) -> int:
        return sum(1 for index in self.order if self.states[index].first_try_right)

    @property
    def right_count(self) -> int:
        """Questions closed right in this pass (at any try, without reveal)."""
        return sum(1 for index in self.order if self.states[index].outcome is Outcome.RIGHT)

    @property
    def answered(self) -> int:
        return sum(1 for index in self.order if self.states[index].closed)

    @property
    def missed(self) -> tuple[int, ...]:
        """Questions not right on the first try in this pass, skipped ones included."""
        return tuple(index for index in self.order if not self.states[index].first_try_right)

    def retry(self, indexes: Iterable[int] | None = None) -> QuizSession:
        """A retry pass over some questions (default: the missed ones); never a first pass."""
        order = self.missed if indexes is None else tuple(indexes)
        return QuizSession.start(
            self.quiz,
            self.questions,
            PassKind.RETRY,
            order=order,
            read_number=self.read_number,
            clock=self.clock,
            student_key=self.student_key,
        )


_HASH = re.compile(r"[0-9a-f]{64}\Z")


def code_key(code: str) -> str:
    """A code answer as a repeated try is recognised: the sha256 of the code without
    trailing spaces and blank ends (a stored key is already one)."""
    if _HASH.match(code):
        return code
    import hashlib  # here: OpenSSL's start-up is not a quiz's, most have no code question

    normal = "\n".join(line.rstrip() for line in code.strip().splitlines())
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()
