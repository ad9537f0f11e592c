"""The review queue: missed or revealed questions come back when FSRS says they are due.

The scheduling is the `fsrs` package's; this module only decides which answer is
which rating and keeps each card in the progress database (one row per question,
written in the same autocommit as any other write, so it survives kill -9).
Times are UTC; the clock is injected so tests can fix it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING

from tui_course.content.errors import ContentError
from tui_course.content.grading import NumberReader
from tui_course.content.kinds import tries_allowed
from tui_course.content.models import REVIEW_ID, Course, Question, Quiz
from tui_course.content.session import PassKind, QuizSession
from tui_course.progress.store import ProgressStore

if TYPE_CHECKING:
    from fsrs import Scheduler

Now = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class DueItem:
    quiz_id: str
    question: int  # 1-based
    due: str


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


class ReviewSchedule:
    """Rates each closed question and stores the card FSRS returns."""

    def __init__(self, store: ProgressStore, now: Now = utc_now) -> None:
        self.store = store
        self.now = now

    @cached_property
    def scheduler(self) -> Scheduler:
        """Made when the first question closes: a returning student's quiz summary opens
        without loading fsrs."""
        from fsrs import Scheduler

        return Scheduler(enable_fuzzing=False)  # the same answers, the same dates

    def closed(
        self, quiz_id: str, question: int, verdict: str, try_number: int, pass_kind: str
    ) -> None:
        """A question was closed. Outside review, only a miss (anything but right on try 1)
        enters the queue; in review, every answer moves the card."""
        from fsrs import Card, Rating

        stored = self.store.review_card(quiz_id, question)
        missed = verdict != "right" or try_number > 1
        if stored is None and not missed:
            return
        if pass_kind != "review" and stored is not None and not missed:
            return  # a right first try elsewhere does not reschedule a card already queued
        if verdict != "right":
            rating = Rating.Again
        elif try_number > 1:
            rating = Rating.Hard
        else:
            rating = Rating.Good
        if stored is None:
            # fsrs's own id (the epoch milliseconds) given here: made by fsrs, it sleeps a
            # millisecond to keep ids apart, which on a busy server is a wake-up of ~10 ms
            # before a skipped question's next one shows. The id is only kept in the JSON.
            card = Card(card_id=int(self.now().timestamp() * 1000))
        else:
            card = Card.from_json(stored)
        card, _ = self.scheduler.review_card(card, rating, self.now())
        self.store.save_review_card(quiz_id, question, card.to_json(), _stamp(card.due))

    def due(self) -> list[DueItem]:
        return [DueItem(*row) for row in self.store.review_cards_due(_stamp(self.now()))]

    def next_due(self) -> str | None:
        """When the earliest card not yet due comes back (for "nothing due until ...")."""
        now = _stamp(self.now())
        later = [due for _, _, due in self.store.review_cards_all() if due > now]
        return min(later, default=None)


def key_resolver(
    course: Course, quiz_keys: Mapping[str, Sequence[Question] | ContentError]
) -> Callable[[Question], Question | None]:
    """`review_session`'s `resolve` from each quiz's computed keys: a quiz whose keys
    failed (a ContentError) or were not computed leaves its questions out."""
    resolved: dict[int, Question] = {}
    for quiz in course.quizzes:
        keys = quiz_keys.get(quiz.id)
        if keys is not None and not isinstance(keys, ContentError):
            resolved.update(zip(map(id, quiz.questions), keys, strict=True))
    return lambda question: resolved.get(id(question))


def review_session(
    course: Course,
    store: ProgressStore,
    now: datetime,
    resolve: Callable[[Question], Question | None],
    read_number: NumberReader,
    student_key: str | None = None,
) -> QuizSession | None:
    """One review pass over every due question, mixed across quizzes (None: nothing due).

    Each question keeps the number of tries its own quiz gives it; its attempts are
    stored under its own quiz and number. `resolve` gives a question with its computed
    key, or None when its quiz's keys failed (that question is left out).
    """
    questions: list[Question] = []
    quiz_of: dict[int, str] = {}
    number_of: dict[int, int] = {}
    for quiz_id, number, _ in store.review_cards_due(_stamp(now)):
        quiz = course.find(quiz_id)
        if not isinstance(quiz, Quiz) or not 1 <= number <= len(quiz.questions):
            continue  # the quiz changed since: its card waits, harmless
        question = quiz.questions[number - 1]
        resolved = resolve(question)
        if resolved is None:
            continue  # its quiz's keys could not be computed: the card waits
        index = len(questions)
        questions.append(dataclasses.replace(resolved, tries=tries_allowed(quiz, question)))
        quiz_of[index], number_of[index] = quiz_id, number
    if not questions:
        return None
    review = Quiz(id=REVIEW_ID, title="Review", path="", questions=tuple(questions))
    return QuizSession.start(
        review,
        review.questions,
        PassKind.REVIEW,
        read_number=read_number,
        student_key=student_key,
        review_of=quiz_of,
        review_numbers=number_of,
    )
