"""A code exercise as its widget draws it: the draft, the check under way, the last verdict.

The quiz's rules stay in content/session.py (tries, hints, when a question closes and
what is stored); this state adds what the editor needs beside them: the draft and what
of it is on disk, a check in flight (numbered, so a late result of an older check never
replaces a newer one), the last verdict and the code it was for, and a reset that asks
first. Checking and saving are the caller's side effects (a worker thread each); their
outcomes come back as one more change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol


class Judged(Protocol):
    """What the state needs of a verdict (the judge's own type carries the rest)."""

    @property
    def passed(self) -> bool: ...


class CodePhase(StrEnum):
    EDITING = "editing"  # no check under way
    CHECKING = "checking"  # a check runs; typing goes on
    PASSED = "passed"  # the question closed with a pass: the solution shows
    REVEALED = "revealed"  # closed without one (shown on request, or out of tries)


RESET_QUESTION = "Replace your code with the starter? Press the reset key again to confirm."


@dataclass(frozen=True, eq=False)
class CodeExercise:
    starter: str
    solution: str
    draft: str
    saved_draft: str  # what the data folder holds now (the starter counts as saved)
    max_chars: int = 20 * 1024
    checking: int | None = None  # the number of the check under way
    checks: int = 0
    verdict: Judged | None = None
    checked_code: str | None = None  # the code the shown verdict is for
    closed: CodePhase | None = None  # PASSED or REVEALED once the quiz closed it
    confirming_reset: bool = False
    notice: str = ""  # one line: a key that did nothing and why, a problem saving
    opening: bool = False  # the editor is still being built: keys pressed now are not typed
    not_typed: int = 0  # keys pressed while it was opening, said until the next check
    warning: str = ""  # the sandbox could not start (said above the editor), or ""

    @classmethod
    def open(
        cls, starter: str, solution: str, draft: str | None, max_chars: int = 20 * 1024
    ) -> CodeExercise:
        """A question opened: its saved draft when there is one, else the starter."""
        text = starter if draft is None else draft
        return cls(starter, solution, text, saved_draft=text, max_chars=max_chars, opening=True)

    # what the view asks

    @property
    def phase(self) -> CodePhase:
        if self.checking is not None:
            return CodePhase.CHECKING
        return self.closed or CodePhase.EDITING

    @property
    def solution_visible(self) -> bool:
        """Only after a pass or a reveal, as a quiz's key."""
        return self.closed is not None and bool(self.solution.strip())

    @property
    def unsaved(self) -> bool:
        return self.draft != self.saved_draft

    @property
    def verdict_is_stale(self) -> bool:
        """The verdict shown was for code that has changed since."""
        return self.verdict is not None and self.checked_code != self.draft

    # changes

    def typed(self, text: str) -> CodeExercise:
        if text == self.draft:
            return self
        return replace(self, draft=text, confirming_reset=False, notice="")

    def check_started(self) -> tuple[CodeExercise, int | None]:
        """The next state and the check's number; None when none starts (say why)."""
        if self.checking is not None:
            return replace(self, notice="A check is running already: its verdict comes here."), None
        if not self.draft.strip():
            return replace(self, notice="There is no code to check yet."), None
        if len(self.draft) > self.max_chars:
            notice = f"Your code is over {self.max_chars // 1024} KB: shorten it to check it."
            return replace(self, notice=notice), None
        number = self.checks + 1
        return replace(
            self, checking=number, checks=number, notice="", confirming_reset=False, not_typed=0
        ), number

    def check_finished(self, number: int, code: str, verdict: Judged) -> CodeExercise:
        if number != self.checking:
            return self
        return replace(self, checking=None, verdict=verdict, checked_code=code)

    def check_failed(self, number: int, problem: str) -> CodeExercise:
        """The check itself could not run (not the student's code: the machinery)."""
        if number != self.checking:
            return self
        return replace(self, checking=None, notice=f"The check could not run: {problem}")

    def editor_ready(self) -> CodeExercise:
        """The editor takes keys from now on."""
        return replace(self, opening=False) if self.opening else self

    def keys_not_typed(self, count: int) -> CodeExercise:
        """Keys pressed while the editor was opening were dropped (a second Enter meant for
        the quiz must not edit the code): said, and kept said while the student types on
        (a fast typist's next key would hide a notice), until the next check."""
        return replace(self, not_typed=count)

    def with_notice(self, notice: str) -> CodeExercise:
        return replace(self, notice=notice)

    def with_warning(self, warning: str) -> CodeExercise:
        """What the checker's start said (its sandbox probe), once it has started."""
        return self if warning == self.warning else replace(self, warning=warning)

    def saved(self, text: str) -> CodeExercise:
        notice = "" if self.notice.startswith("Your draft could not be saved") else self.notice
        return replace(self, saved_draft=text, notice=notice)

    def save_failed(self, problem: str) -> CodeExercise:
        return replace(
            self, notice=f"Your draft could not be saved ({problem}); keep the app open."
        )

    def ask_reset(self) -> CodeExercise:
        """Reset asks first; the second press replaces the draft (undo still brings it back)."""
        if self.draft == self.starter:
            return replace(self, notice="This is the starter code already.", confirming_reset=False)
        if not self.confirming_reset:
            return replace(self, confirming_reset=True, notice=RESET_QUESTION)
        return replace(
            self,
            draft=self.starter,
            confirming_reset=False,
            notice="Back to the starter code (ctrl+z undoes it).",
        )

    def keep_draft(self) -> CodeExercise:
        """Any other key after the reset question: the draft stays."""
        if not self.confirming_reset:
            return self
        return replace(self, confirming_reset=False, notice="")

    def close(self, passed: bool) -> CodeExercise:
        """The quiz closed the question: a pass, or the answer shown."""
        closed = CodePhase.PASSED if passed else CodePhase.REVEALED
        return (
            self if self.closed is closed else replace(self, closed=closed, confirming_reset=False)
        )
