"""A quiz run as the quiz view draws it: the session plus what the student has picked or typed.

The rules (tries, hints, when the key shows, what is saved) stay in content/session.py;
a QuizRun adds only what used to live in the widget (the picked options, the highlighted
one, the typed answer, a problem said in words, the summary's store reads). Both are
frozen: each change is a new run holding the session the rules returned, so an old run
stays as drawn.
Saving stays with the caller: `graded`, `reveal_record` and `skip_record` give the record
to save, and `saved` applies it afterwards (the screen never runs ahead of the disk).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tui_course.content import kinds
from tui_course.content.code_model import CodeAttempt
from tui_course.content.grading import AnswerFormatError, Verdict
from tui_course.content.kinds.base import Draft
from tui_course.content.models import Question
from tui_course.content.session import AttemptRecord, PassKind, Phase, QuizSession


# eq=False: a run is a new object exactly when something changed (the reactive compares
# by identity; comparing two sessions field by field would cost a key press its time).
@dataclass(frozen=True, eq=False)
class QuizRun:
    session: QuizSession
    picked: frozenset[int] = frozenset()
    cursor: int = 1  # the highlighted option, 1-based
    typed: str = ""  # the answer box's text
    # Rows being put together with keys (a kind answered by arranging; None: not yet
    # touched, see `arranging`).
    draft: Draft | None = None
    problem: str = ""  # an answer that could not be read or saved, said in words
    # Read from the store when the pass finished (None: it could not say).
    mastered: int | None = None
    first_try_score: int | None = None

    @classmethod
    def of(cls, session: QuizSession) -> QuizRun:
        return cls(session)

    # what the view asks

    @property
    def phase(self) -> Phase:
        return self.session.phase

    @property
    def question(self) -> Question:
        return self.session.question

    @property
    def asks_typed(self) -> bool:
        """The open question takes a typed answer (its box shows and has focus)."""
        return self.phase is Phase.ASKING and kinds.of(self.question).typed

    @property
    def shows_code(self) -> bool:
        """A code question on screen (open or closed): its editor shows."""
        return self.phase in (Phase.ASKING, Phase.CLOSED) and kinds.of(self.question).checked

    @property
    def code_key(self) -> tuple[str, int]:
        """Whose draft the editor holds: the question's own quiz and number (in review too)."""
        session = self.session
        return session.review_of.get(session.index, session.quiz.id), session.number

    @property
    def asks_choice(self) -> bool:
        return self.phase is Phase.ASKING and kinds.of(self.question).picks_options

    @property
    def arranging(self) -> Draft | None:
        """The rows being arranged, for a kind answered that way (shown once closed too)."""
        if self.phase not in (Phase.ASKING, Phase.CLOSED):
            return None
        return self.draft or kinds.of(self.question).draft(self.question)

    @property
    def asks_rows(self) -> bool:
        """The open question is answered with the number keys (options or rows to arrange)."""
        return self.asks_choice or (self.phase is Phase.ASKING and self.arranging is not None)

    @property
    def at_end(self) -> bool:
        """The end of a quiz pass (a review pass has no retry: its questions come back)."""
        return self.phase is Phase.FINISHED and self.session.kind is not PassKind.REVIEW

    @property
    def place(self) -> tuple[Phase, int]:
        """Where the run is: a new place is a new screen (scrolled home, focus moved)."""
        return self.phase, self.session.position

    def graded(self) -> tuple[Verdict, AttemptRecord] | str:
        """The verdict and record for the current answer, or why it cannot be read."""
        arranging = self.arranging
        if kinds.of(self.question).typed:
            raw = self.typed
        elif arranging is not None:
            raw = arranging.raw()
        else:
            raw = ",".join(str(n) for n in sorted(self.picked))
        try:
            return self.session.answer(raw)
        except AnswerFormatError as problem:
            return str(problem)

    def code_graded(
        self, attempt: CodeAttempt, feedback: str | None = None
    ) -> tuple[Verdict, AttemptRecord] | str:
        """A finished code check as an answer (the record to save), or why it is not one."""
        try:
            passed = attempt.outcome == "passed"
            return self.session.answer_code(attempt.code, passed, feedback, attempt)
        except AnswerFormatError as problem:
            return str(problem)

    def reveal_record(self) -> AttemptRecord | None:
        return self.session.reveal()

    def skip_record(self) -> AttemptRecord | None:
        return self.session.skip()

    # changes

    def _fresh(self, session: QuizSession) -> QuizRun:
        """A new question: nothing picked or typed yet."""
        return QuizRun(session)

    def begin(self) -> QuizRun:
        if self.phase is not Phase.INTRO:
            return self
        return self._fresh(self.session.begin())

    def pick(self, number: int) -> QuizRun:
        """Choose option `number` (toggle it in a multiple choice), or a row to arrange;
        no such option: no change."""
        arranging = self.arranging
        if arranging is not None and self.phase is Phase.ASKING:
            pressed = arranging.press(number)
            return self if pressed is None else replace(self, draft=pressed)
        if not self.asks_choice or not 1 <= number <= len(self.question.options):
            return self
        if kinds.of(self.question).picks_several:
            return replace(self, cursor=number, picked=self.picked ^ {number})
        return replace(self, cursor=number, picked=frozenset({number}))

    def toggle(self) -> QuizRun:
        return self.pick(self.cursor)

    def move_cursor(self, step: int) -> QuizRun:
        """Highlight another option (and choose it, in a single choice)."""
        arranging = self.arranging
        if arranging is not None and self.phase is Phase.ASKING:
            return replace(self, draft=arranging.step(step, carry=False))
        if not self.asks_choice:
            return self
        cursor = (self.cursor - 1 + step) % len(self.question.options) + 1
        several = kinds.of(self.question).picks_several
        picked = self.picked if several else frozenset({cursor})
        return replace(self, cursor=cursor, picked=picked)

    def carry(self, step: int) -> QuizRun:
        """Move the picked row up or down (a kind answered by arranging rows)."""
        arranging = self.arranging
        if arranging is None or self.phase is not Phase.ASKING:
            return self
        return replace(self, draft=arranging.step(step, carry=True))

    def type(self, text: str) -> QuizRun:
        return self if text == self.typed else replace(self, typed=text)

    def hint(self) -> QuizRun:
        """The next hint shown; no change when there is none left."""
        if not self.session.hint_left:
            return self
        return replace(self, session=self.session.with_hint())

    def with_problem(self, problem: str) -> QuizRun:
        return replace(self, problem=problem)

    def unsaved(self, error: Exception) -> QuizRun:
        return self.with_problem(f"Your answer could not be saved ({error}). Try again.")

    def saved(self, record: AttemptRecord, verdict: Verdict | None = None) -> QuizRun:
        """Take in a record the store has kept."""
        return replace(self, session=self.session.apply(record, verdict), problem="")

    def advanced(self) -> QuizRun:
        """On to the next open question, or to the end."""
        return self._fresh(self.session.advance())

    def finished(self, mastered: int | None, first_try_score: int | None) -> QuizRun:
        """The end of the pass, with what the store says beyond it (for the summary)."""
        return replace(self, mastered=mastered, first_try_score=first_try_score)

    def again(self, indexes: range | None = None) -> QuizRun:
        """A retry pass: the missed questions, or those in `indexes`."""
        return QuizRun.of(self.session.retry(indexes))
