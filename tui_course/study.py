"""What the app keeps for a student's session, free of Textual, so it is tested directly:
the quizzes' answer keys (computed once, off the UI thread), the passes they open, and
the quiz results owed to the class folder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from tui_course.content.errors import ContentError
from tui_course.content.models import Course, Question, Quiz

if TYPE_CHECKING:
    from tui_course.content.session import QuizSession
    from tui_course.progress.store import ProgressStore

KeysByQuiz = Mapping[str, "tuple[Question, ...] | ContentError"]


def resolve_answer_keys(quizzes: Sequence[Quiz]) -> dict[str, tuple[Question, ...] | ContentError]:
    """Each quiz's questions with computed keys, or why they cannot be computed."""
    # Deferred: NumPy loads here, in the worker thread, when the first quiz opens.
    from tui_course.answers import resolve_quiz

    keys: dict[str, tuple[Question, ...] | ContentError] = {}
    for quiz in quizzes:
        try:
            keys[quiz.id] = resolve_quiz(quiz)
        except ContentError as error:
            keys[quiz.id] = error
    return keys


class AnswerKeys:
    """Every quiz's keys, computed once, in a thread, when the first quiz opens.

    Never on the UI thread (a key is an expression from a content file), and not at
    start-up, which would load NumPy before the first lesson needs it.
    """

    def __init__(self, course: Course) -> None:
        self.course = course
        self._future: asyncio.Future[KeysByQuiz] | None = None
        self.known: KeysByQuiz = {}  # what the last `ready` gave

    async def ready(self) -> KeysByQuiz:
        if self._future is None:
            loop = asyncio.get_running_loop()
            self._future = loop.run_in_executor(None, resolve_answer_keys, self.course.quizzes)
        self.known = await self._future
        return self.known

    def first_pass(self, store: ProgressStore, quiz: Quiz) -> QuizSession:
        """The quiz's first pass: fresh (intro first), resumed, or finished (its summary).

        Raises StoreError when the store cannot say where the student stands; the quiz's
        keys must have been computed (`ready`) without a ContentError."""
        from tui_course.answers import read_number
        from tui_course.content.session import QuizSession
        from tui_course.progress.recorder import open_quiz

        keys = self.known[quiz.id]
        if isinstance(keys, ContentError):
            raise keys
        return open_quiz(
            store,
            lambda done: QuizSession.start(quiz, keys, done=done, read_number=read_number),
            quiz.id,
            len(keys),
        )

    def review_pass(self, store: ProgressStore, now: datetime) -> QuizSession | None:
        """The due questions of every quiz whose keys could be computed, in one pass (None:
        nothing due). Raises StoreError when the store cannot be read."""
        from tui_course.answers import read_number
        from tui_course.progress.review import review_session

        resolved: dict[int, Question] = {}
        for quiz in self.course.quizzes:
            keys = self.known.get(quiz.id)
            if keys is not None and not isinstance(keys, ContentError):
                resolved.update(zip(map(id, quiz.questions), keys, strict=True))
        return review_session(self.course, store, now, lambda q: resolved.get(id(q)), read_number)


class Outbox:
    """Finished quizzes whose results are owed to the class folder: those that could not
    be read from the store when they finished go with the next ones sent."""

    def __init__(self) -> None:
        self.owed: set[str] = set()

    def with_owed(self, quiz_ids: Sequence[str]) -> list[str]:
        """The quizzes to send now: these and every one still owed."""
        return sorted(self.owed | set(quiz_ids))

    def unread(self, quiz_ids: Sequence[str]) -> None:
        """Their results could not be read just now: they are owed."""
        self.owed = set(quiz_ids)

    def sent(self) -> None:
        self.owed = set()
