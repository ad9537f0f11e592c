"""Scores a teacher can trust, derived from attempt rows and nothing else.

- first-try: questions right on try 1 in the quiz's first pass, once that pass is
  finished. Retry and review passes never touch it.
- mastered: questions answered right without asking for the key, at any try, in any pass.
- best: the most questions right (without reveal) in one finished pass over the whole quiz.
- a first pass left part-way is "in progress" with i of n answered: not a score.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

GRADED = ("right", "wrong")


@dataclass(frozen=True)
class AttemptRow:
    """An attempt with everything v2 keeps about it."""

    run_id: int | None
    quiz_id: str
    question_index: int  # 1-based
    answer: str
    verdict: str  # right | wrong | revealed | skipped
    try_number: int
    hints_seen: int
    revealed: bool
    seconds: float | None
    pass_kind: str  # first | retry | review
    final: bool
    created_at: str


@dataclass(frozen=True)
class QuizStats:
    """A quiz's standing, derived from its attempt rows (quiz_stats below)."""

    state: str  # not started | in progress | finished
    answered: int  # questions closed in the first pass
    first_try: int | None  # right on try 1 in the finished first pass
    mastered: frozenset[int]  # question numbers right without reveal, at any try
    best: int | None  # most questions right without reveal in one finished full pass
    tries: int  # answers graded (right or wrong)
    hints: int
    reveals: int
    seconds: float
    last_activity: str | None

    @property
    def attempts(self) -> int:
        return self.tries


class AttemptHistory(Protocol):
    """The rows quiz_stats reads. The progress store gives them (and calls quiz_stats with
    itself), so this module names what it needs instead of importing the store."""

    def quiz_rows(self, quiz_id: str) -> list[AttemptRow]: ...

    def first_run(self, quiz_id: str) -> tuple[int, bool] | None: ...

    def run_rows(self, run_id: int) -> list[AttemptRow]: ...

    def finished_full_runs(self, quiz_id: str, question_count: int) -> list[int]: ...


def mastered_questions(rows: Iterable[AttemptRow], question_count: int) -> frozenset[int]:
    return frozenset(
        row.question_index
        for row in rows
        if row.verdict == "right" and not row.revealed and 1 <= row.question_index <= question_count
    )


def first_try_right(rows: Iterable[AttemptRow]) -> frozenset[int]:
    return frozenset(r.question_index for r in rows if r.verdict == "right" and r.try_number == 1)


def closed_questions(rows: Iterable[AttemptRow]) -> frozenset[int]:
    return frozenset(row.question_index for row in rows if row.final)


def hints_seen(rows: Iterable[AttemptRow]) -> int:
    """Hints are counted once per question and pass (each row holds the running count)."""
    most: dict[tuple[int | None, int], int] = {}
    for row in rows:
        key = (row.run_id, row.question_index)
        most[key] = max(most.get(key, 0), row.hints_seen)
    return sum(most.values())


def quiz_stats(store: AttemptHistory, quiz_id: str, question_count: int) -> QuizStats:
    rows = store.quiz_rows(quiz_id)
    first = store.first_run(quiz_id)
    first_rows = store.run_rows(first[0]) if first else []
    if first is not None and first[1]:
        state, first_try = "finished", len(first_try_right(first_rows))
    elif first_rows:
        state, first_try = "in progress", None
    else:
        state, first_try = "not started", None
    best = None
    for run_id in store.finished_full_runs(quiz_id, question_count):
        right = len(mastered_questions(store.run_rows(run_id), question_count))
        best = right if best is None else max(best, right)
    return QuizStats(
        state=state,
        answered=len(closed_questions(first_rows)),
        first_try=first_try,
        mastered=mastered_questions(rows, question_count),
        best=best,
        tries=sum(1 for row in rows if row.verdict in GRADED),
        hints=hints_seen(rows),
        reveals=sum(1 for row in rows if row.revealed),
        seconds=round(sum(row.seconds or 0.0 for row in rows), 1),
        last_activity=max((row.created_at for row in rows), default=None),
    )
