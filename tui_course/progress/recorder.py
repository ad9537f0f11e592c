"""Writes a quiz session's runs and attempts to the progress store."""

from __future__ import annotations

from tui_course.content.grading import Verdict
from tui_course.content.session import QuizSession
from tui_course.progress.store import ProgressStore


class QuizRecorder:
    """Each attempt is committed before `attempt` returns, so the verdict the screen
    shows afterwards is never ahead of the disk."""

    def __init__(self, store: ProgressStore) -> None:
        self.store = store
        self._runs: dict[int, int] = {}  # id(session) -> run id

    def start(self, session: QuizSession) -> None:
        self._runs[id(session)] = self.store.start_run(session.quiz.id, len(session.order))

    def attempt(self, session: QuizSession, answer: str, verdict: Verdict) -> None:
        run_id = self._runs.get(id(session))
        self.store.record_attempt(run_id, session.quiz.id, session.number, answer, verdict.correct)

    def finish(self, session: QuizSession) -> None:
        run_id = self._runs.pop(id(session), None)
        if run_id is not None:
            self.store.finish_run(run_id, session.correct_count)
