"""One pass through a quiz as a plain object: the whole state the quiz screen draws.

The rules live here, free of UI, so they are tested directly: a wrong answer
teaches before it tells (targeted feedback, else the next hint), the key and
explanation appear only once a question is closed (right, out of tries, or
revealed on request), and every change the store must keep comes out as an
AttemptRecord that the caller saves before applying it. A session is a frozen value:
each change returns the next one.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
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


@dataclass(frozen=True)
class QuestionState:
    tries_used: int = 0
    hints_seen: int = 0
    outcome: Outcome | None = None  # set when the question closes
    first_try_right: bool = False
    last_answer: str = ""
    verdict: Verdict | None = None  # the last graded answer
    message: str | None = None  # what the last wrong answer taught (feedback or hint)
    tried: frozenset[str] = frozenset()  # wrong answers given, as graded

    @property
    def closed(self) -> bool:
        return self.outcome is not None


Clock = Callable[[], float]
FIRST_PASS_SEED = "first"  # the first pass keeps one order however often it is resumed
_pass_ids = itertools.count(1)


def new_pass_id() -> int:
    """A token naming one pass, never given twice in this process (the recorder keeps
    one stored run per token)."""
    return next(_pass_ids)


# eq=False: a session is a new object exactly when something changed, so it compares by
# identity (field by field would compare every question for nothing).
@dataclass(frozen=True, eq=False)
class QuizSession:
    """The state of one pass. Every change is a method returning the next session, so an
    old one stays as it was (the widget compares them by identity and redraws)."""

    quiz: Quiz
    questions: tuple[Question, ...]  # the quiz's questions with numeric keys resolved
    order: tuple[int, ...]  # 0-based indexes asked in this pass
    kind: PassKind = PassKind.FIRST
    phase: Phase = Phase.ASKING
    position: int = 0
    states: Mapping[int, QuestionState] = field(default_factory=dict)
    read_number: NumberReader = parse_number
    clock: Clock = time.monotonic
    since: float = 0.0  # clock reading when the current question's timer last restarted
    # a review pass mixes quizzes: each index maps back to its quiz and question number
    review_of: Mapping[int, str] = field(default_factory=dict)
    review_numbers: Mapping[int, int] = field(default_factory=dict)
    # Options are shown in an order drawn from (student, shuffle seed, question); None:
    # file order.
    student_key: str | None = None
    shuffle_seed: str = FIRST_PASS_SEED
    # Which pass this is: the same for every session one pass's changes make, another for
    # every new pass (even one with the same seed).
    pass_id: int = field(default_factory=new_pass_id)

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
        review_of: Mapping[int, str] | None = None,
        review_numbers: Mapping[int, int] | None = None,
    ) -> QuizSession:
        """A new pass; `done` holds questions already closed in it (a resumed first pass).

        A fresh first pass opens on the intro; a resumed one at its first open question.
        With `student_key`, options are shuffled for that student: the first pass always
        the same way, every other pass anew.
        """
        asked = tuple(range(len(questions)) if order is None else order)
        seed = FIRST_PASS_SEED
        if kind is not PassKind.FIRST:
            import secrets  # here: a first pass (what a returning student reopens) needs none

            seed = secrets.token_hex(8)
        session = cls(
            quiz,
            questions,
            asked,
            kind,
            read_number=read_number,
            clock=clock,
            review_of=review_of or {},
            review_numbers=review_numbers or {},
            student_key=student_key,
            shuffle_seed=seed,
        )
        states = {index: QuestionState() for index in asked}
        for index, state in (done or {}).items():  # resumed: the stored wrong answers, as graded
            if 0 <= index < len(questions):
                state = replace(
                    state, tried=frozenset(session._regraded(index, raw) for raw in state.tried)
                )
            states[index] = state
        open_positions = [p for p, index in enumerate(asked) if not states[index].closed]
        phase, position = Phase.ASKING, 0
        if not open_positions:
            phase, position = Phase.FINISHED, len(asked) - 1
        elif kind is PassKind.FIRST and not done:
            phase = Phase.INTRO
        else:
            position = open_positions[0]
        return replace(session, states=states, phase=phase, position=position, since=clock())

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
            seed = f"{self.student_key}|{self.shuffle_seed}|{quiz_id}|{self.review_number(index)}"
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

    # changes: records come first (save them), then apply() returns the next session

    def begin(self) -> QuizSession:
        """Leave the intro for question 1."""
        if self.phase is not Phase.INTRO:
            return self
        return replace(self, phase=Phase.ASKING, since=self.clock())

    def with_hint(self) -> QuizSession:
        """The next hint shown (see `hints()`); no change when none is left or the
        question is closed (`hint_left` says which)."""
        if not self.hint_left:
            return self
        state = replace(self.state, hints_seen=self.state.hints_seen + 1)
        return replace(self, states={**self.states, self.index: state})

    def at_question(self, index: int) -> QuizSession:
        """Question `index` of this pass open for answers (an answer given outside the
        quiz screen, as `attn-tui check` does)."""
        return replace(self, phase=Phase.ASKING, position=self.order.index(index))

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
        return verdict, replace(record, code=attempt)

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

    def apply(self, record: AttemptRecord, verdict: Verdict | None = None) -> QuizSession:
        """The session after a saved record: the try counted, the question taught or closed."""
        state = self.state
        if record.verdict in (Outcome.RIGHT, Outcome.WRONG):
            tried = state.tried
            if verdict is not None and record.verdict is Outcome.WRONG:
                tried = tried | {self._as_graded(record.answer, verdict, stored=True)}
            first_try_right = state.first_try_right
            if record.try_number == 1:
                first_try_right = record.verdict is Outcome.RIGHT
            state = replace(
                state,
                tried=tried,
                tries_used=record.try_number,
                last_answer=record.answer,
                verdict=verdict,
                first_try_right=first_try_right,
            )
        state = replace(state, message=None)
        phase = self.phase
        if record.final:
            state, phase = replace(state, outcome=record.verdict), Phase.CLOSED
        elif verdict is not None:
            if verdict.feedback:
                state = replace(state, message=verdict.feedback)
            elif phase is Phase.ASKING and state.hints_seen < len(self.question.hints):
                hints_seen = state.hints_seen + 1  # nothing aimed at it: the next hint teaches
                message = self.question.hints[hints_seen - 1]
                state = replace(state, hints_seen=hints_seen, message=message)
        return replace(
            self, states={**self.states, self.index: state}, phase=phase, since=self.clock()
        )

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

    def advance(self) -> QuizSession:
        """On to the next open question, or to the end."""
        for position in range(self.position + 1, len(self.order)):
            if not self.states[self.order[position]].closed:
                return replace(self, position=position, phase=Phase.ASKING, since=self.clock())
        return replace(self, phase=Phase.FINISHED)

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
            seconds=round(max(0.0, self.clock() - self.since), 3),
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
