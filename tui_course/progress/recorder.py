"""Writes a quiz session's passes and attempts to the progress store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tui_course.content.session import (
    AttemptRecord,
    Outcome,
    PassKind,
    Phase,
    QuestionState,
    QuizSession,
)
from tui_course.progress.review import ReviewSchedule
from tui_course.progress.store import ProgressStore

REVIEW_RUN = "(review)"
SessionFactory = Callable[
    [dict[int, QuestionState]], QuizSession
]  # the run id's quiz column for a review pass, which mixes quizzes


class QuizRecorder:
    """Each attempt is committed before `save` returns, so the screen is never ahead of
    the disk. A first pass continues the quiz's one first run; other passes get a new run,
    created with their first row (opening a quiz and leaving writes nothing)."""

    def __init__(self, store: ProgressStore, schedule: ReviewSchedule | None = None) -> None:
        self.store = store
        self.schedule = schedule
        # the pass's token (QuizSession.pass_id) -> its stored run's id
        self._runs: dict[int, int] = {}

    def _run(self, session: QuizSession) -> int:
        """The session's run, made now if it has none. Called inside the attempt's
        transaction: a run that cannot be made fails the answer, and a run rolled back
        with its attempt is not remembered."""
        known = self._runs.get(session.pass_id)
        if known is not None and self.store.run_exists(known):
            return known  # (`attn-tui reset` in another terminal may have removed it)
        first = self.store.first_run(session.quiz.id)
        if session.kind is PassKind.FIRST and first is not None and not first[1]:
            return first[0]
        kind = session.kind if first is None or session.kind is not PassKind.FIRST else "retry"
        quiz_id = REVIEW_RUN if session.kind is PassKind.REVIEW else session.quiz.id
        return self.store.start_run(quiz_id, len(session.order), str(kind), essential=True)

    def save(self, session: QuizSession, record: AttemptRecord) -> None:
        """The attempt, its review card and (for a pass's first answer) its run are one
        transaction: all on disk, or none. Every session of one pass (same `pass_id`)
        writes to the same run."""
        with self.store.transaction():
            run_id = self._run(session)
            self._write(run_id, record)
        self._runs[session.pass_id] = run_id

    def _write(self, run_id: int, record: AttemptRecord) -> None:
        self.store.record_attempt(
            run_id,
            record.quiz_id,
            record.question,
            record.answer,
            record.verdict == "right",
            verdict=str(record.verdict),
            try_number=record.try_number,
            hints_seen=record.hints_seen,
            revealed=record.revealed,
            seconds=record.seconds,
            pass_kind=str(record.pass_kind),
            final=record.final,
            code=record.code,
        )
        if self.schedule is not None and record.final:
            self.schedule.closed(
                record.quiz_id,
                record.question,
                str(record.verdict),
                record.try_number,
                str(record.pass_kind),
            )

    def first_try_score(self, quiz_id: str, question_count: int) -> int | None:
        return self.store.quiz_stats(quiz_id, question_count).first_try

    def mastered_count(self, quiz_id: str, question_count: int) -> int:
        """Questions right without a reveal, in any pass (retries and reviews included)."""
        return len(self.store.quiz_stats(quiz_id, question_count).mastered)

    def finish(self, session: QuizSession) -> None:
        known = self._runs.pop(session.pass_id, None)
        if known is not None:
            self.store.finish_run(known)


def first_pass_states(
    store: ProgressStore, quiz_id: str, question_count: int
) -> dict[int, QuestionState]:
    """The quiz's first pass as the store holds it, to resume it or show its summary.

    Questions keep their tries and hints, so leaving a quiz and coming back never buys
    fresh tries. In a finished pass, a question with no row was skipped.
    """
    first = store.first_run(quiz_id)
    if first is None:
        return {}
    run_id, finished = first
    states: dict[int, QuestionState] = {}
    for row in store.run_rows(run_id):
        index = row.question_index - 1
        if not 0 <= index < question_count:
            continue
        state = states.get(index, QuestionState())
        if row.verdict in ("right", "wrong"):
            state = replace(
                state,
                tries_used=max(state.tries_used, row.try_number),
                last_answer=row.answer,
            )
            if row.verdict == "wrong":  # as typed; the session keeps them as graded
                state = replace(state, tried=state.tried | {row.answer})
            if row.try_number == 1:
                state = replace(state, first_try_right=row.verdict == "right")
        state = replace(state, hints_seen=max(state.hints_seen, row.hints_seen))
        if row.final and state.outcome is None:
            state = replace(state, outcome=Outcome(row.verdict))
        states[index] = state
    if finished:
        for index in range(question_count):
            state = states.get(index, QuestionState())
            if state.outcome is None:
                states[index] = replace(state, outcome=Outcome.SKIPPED)
    return states


def open_quiz(
    store: ProgressStore, session_for: SessionFactory, quiz_id: str, count: int
) -> QuizSession:
    """The session a quiz opens on: its first pass (fresh, resumed, or finished and shown as
    a summary with retry keys). A first pass whose every question closed is marked finished."""
    states = first_pass_states(store, quiz_id, count)
    session = session_for(states)
    first = store.first_run(quiz_id)
    if session.phase is Phase.FINISHED and first is not None and not first[1]:
        store.finish_run(first[0])
    return session
