"""A student's study session without a screen, so its rules are tested directly: the
course, their store, the clock and their option-order key, and what the app and plain mode
both decide from them (answer keys, quiz and review sessions, outline marks, what is sent
to the class folder). Nothing here imports Textual; NumPy and fsrs load only when used.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tui_course.content.errors import ContentError
from tui_course.content.models import REVIEW_ID, Course, Question, Quiz
from tui_course.progress.outline import outline_marks, review_due, student_key
from tui_course.progress.store import ProgressStore

if TYPE_CHECKING:
    from tui_course.classroom.link import ClassLink
    from tui_course.content.session import QuizSession
    from tui_course.progress.recorder import QuizRecorder

QuizKeys = tuple[Question, ...] | ContentError  # one quiz's computed questions, or why not
AnswerKeys = Mapping[str, QuizKeys]
Payload = dict[str, Any]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class OutlineState:
    """What the outline shows of the student: each item's mark, and the questions due for
    review (None: nothing was ever scheduled, so no Review entry)."""

    marks: dict[str, str]
    due: int | None


class Outbox:
    """Finished quizzes whose results are owed to the class folder: those that could not
    be read from the store when they finished go with the next ones sent."""

    def __init__(self) -> None:
        self.owed: set[str] = set()

    def with_owed(self, quiz_ids: Collection[str]) -> list[str]:
        """The quizzes to send now: these and every one still owed."""
        return sorted(self.owed | set(quiz_ids))

    def unread(self, quiz_ids: Collection[str]) -> None:
        """Their results could not be read just now: they are owed."""
        self.owed = set(quiz_ids)

    def sent(self) -> None:
        self.owed = set()


class Study:
    """One student's session over a course. The clock is a callable (tests fix it);
    `shuffle_options` False keeps every quiz's options in the file's order."""

    def __init__(
        self,
        course: Course,
        store: ProgressStore,
        now: Callable[[], datetime] = utc_now,
        shuffle_options: bool = True,
    ) -> None:
        self.course = course
        self.store = store
        self.now = now
        self.shuffle_options = shuffle_options
        self.outbox = Outbox()
        self._keys: dict[str, Future[QuizKeys]] = {}  # per quiz id
        self._keys_lock = threading.Lock()

    # answer keys and sessions

    def answer_keys(self, quizzes: Sequence[Quiz] | None = None) -> Future[AnswerKeys]:
        """The keys of `quizzes` (default: every quiz), each quiz's computed once, in a
        thread of its own: never on the caller's (a key is an expression from a content
        file, and the UI thread must keep drawing), and never for a quiz not asked for
        (a returning student's finished quiz loads no NumPy). Asked again, or twice at
        once, a quiz's keys come from the first computation; a quiz with nothing to compute
        has them at once (the future is done on return)."""
        wanted = list(self.course.quizzes if quizzes is None else quizzes)
        with self._keys_lock:
            missing = [quiz for quiz in wanted if quiz.id not in self._keys]
            for quiz in missing:
                self._keys[quiz.id] = Future()
                if not needs_expressions(quiz):  # nothing to compute: no thread to wait on
                    self._keys[quiz.id].set_result(tuple(quiz.questions))
            missing = [quiz for quiz in missing if not self._keys[quiz.id].done()]
            futures = {quiz.id: self._keys[quiz.id] for quiz in wanted}
        if missing:
            threading.Thread(
                target=self._compute, args=(missing,), name="answer-keys", daemon=True
            ).start()
        return _gathered(futures)

    def _compute(self, quizzes: Sequence[Quiz]) -> None:
        try:
            for quiz in quizzes:
                self._keys[quiz.id].set_result(quiz_keys(quiz))
        except BaseException as error:  # an unexpected failure reaches whoever waits
            for quiz in quizzes:
                if not self._keys[quiz.id].done():
                    self._keys[quiz.id].set_exception(error)

    def recorder(self) -> QuizRecorder:
        """What writes this student's answers, with their review schedule on this clock."""
        from tui_course.progress.recorder import QuizRecorder
        from tui_course.progress.review import ReviewSchedule

        return QuizRecorder(self.store, ReviewSchedule(self.store, self.now))

    def student_key(self) -> str | None:
        """The random key this student's option orders are drawn from, kept in their store
        (made on first use); None when shuffling is off."""
        return student_key(self.store) if self.shuffle_options else None

    def quiz_session(self, quiz: Quiz) -> QuizSession:
        """The quiz's first pass: fresh (intro first), resumed, or finished (its summary).
        Waits for its keys (await `answer_keys` first on a UI thread); raises the
        ContentError when they cannot be computed, StoreError when the store cannot be
        read just now."""
        from tui_course.content.session import QuizSession
        from tui_course.progress.recorder import open_quiz

        keys = self.answer_keys([quiz]).result()[quiz.id]
        if isinstance(keys, ContentError):
            raise keys
        shuffled = self.student_key()
        return open_quiz(
            self.store,
            lambda done: QuizSession.start(
                quiz, keys, done=done, read_number=read_number_lazily, student_key=shuffled
            ),
            quiz.id,
            len(keys),
        )

    def review_session(self) -> QuizSession | None:
        """One review pass over every question due now, mixed across quizzes; None when
        nothing is due. Waits for every quiz's keys (a quiz whose keys fail is left out);
        raises StoreError when the store cannot be read just now."""
        from tui_course.progress.review import key_resolver, review_session

        keys = self.answer_keys().result()
        return review_session(
            self.course,
            self.store,
            self.now(),
            key_resolver(self.course, keys),
            read_number_lazily,
            self.student_key(),
        )

    def outline(self) -> OutlineState:
        """Marks and review count; raises StoreError when the store cannot be read now."""
        return OutlineState(
            outline_marks(self.course, self.store), review_due(self.store, self.now())
        )

    # what goes to the class folder

    def lesson_read(self, lesson_id: str) -> bool:
        """Marks the lesson read; True when it was not before, so the class folder is
        sent the new count (the report's lessons follow reading, not only quizzes)."""
        newly_read = lesson_id not in self.store.lessons_done()
        self.store.mark_lesson_done(lesson_id)
        return newly_read

    def sent_after(self, finished_quiz_id: str) -> tuple[str, ...]:
        """The quizzes a finished run sends: its own, or every quiz after a review pass
        (it mixes quizzes, and mastered would otherwise never move in the report)."""
        if finished_quiz_id == REVIEW_ID:
            return tuple(quiz.id for quiz in self.course.quizzes)
        return (finished_quiz_id,)

    def submission(self, link: ClassLink, quiz_ids: Collection[str]) -> Payload | None:
        """The payload for the lessons read and `quiz_ids` with every quiz still owed; None
        when the progress cannot be read just now, and then they are all owed."""
        owed = self.outbox.with_owed(quiz_ids)
        payload = link.payload(self.course, self.store, owed)
        if payload is None:
            self.outbox.unread(owed)
        else:
            self.outbox.sent()
        return payload

    def part_way(self, link: ClassLink) -> Payload | None:
        """On leaving: every quiz's state when one is in progress (otherwise the report never
        sees "in progress" from a student whose login is the app); else None."""
        payload = link.payload(self.course, self.store, [quiz.id for quiz in self.course.quizzes])
        if payload and any(quiz["state"] == "in progress" for quiz in payload["quizzes"]):
            return payload
        return None


def _gathered(
    futures: Mapping[str, Future[QuizKeys]],
) -> Future[AnswerKeys]:
    """One future for several quizzes' keys, done when the last of them is."""
    gathered: Future[AnswerKeys] = Future()
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_: object) -> None:
        with lock:
            left[0] -= 1
            if left[0]:
                return
        failed = next((f.exception() for f in futures.values() if f.exception()), None)
        if failed is not None:
            gathered.set_exception(failed)
        else:
            gathered.set_result({quiz_id: f.result() for quiz_id, f in futures.items()})

    if not futures:
        gathered.set_result({})
    for future in futures.values():
        future.add_done_callback(one_done)
    return gathered


def quiz_keys(quiz: Quiz) -> QuizKeys:
    """The quiz's questions with computed keys, or why they cannot be computed."""
    if not needs_expressions(quiz):
        return tuple(quiz.questions)  # nothing to compute: NumPy stays unloaded
    # Deferred: NumPy loads here, in the keys' thread, when such a quiz is asked for.
    from tui_course.answers import resolve_quiz

    try:
        return resolve_quiz(quiz)
    except ContentError as error:
        return error


def needs_expressions(quiz: Quiz) -> bool:
    """A key or a mistake written as `answer_from`, which the maths (NumPy) computes."""
    return any(
        question.numeric_spec.answer_from is not None
        or any(source is not None for source in question.numeric_spec.mistakes_from)
        for question in quiz.questions
    )


def read_number_lazily(raw: str) -> float:
    """A numeric answer as the quiz reads it; the reader (and NumPy) load on the first."""
    from tui_course.answers import read_number

    return read_number(raw)
