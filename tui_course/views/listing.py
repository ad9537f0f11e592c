"""A runnable lesson listing as its widget draws it: the code, an edited copy, the last run.

Running is the caller's (a worker thread calls tui_course.listings.run.run_listing); the
state only says a run started (`run_started` gives its number) and takes its result
(`run_finished`), so a result that comes back after the code was changed again still
shows, marked as the output of an earlier version, and a stale run never overwrites a
newer one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tui_course.content.segments import ListingRunner, ListingSegment
from tui_course.listings.run import ListingResult


@dataclass(frozen=True, eq=False)
class ListingState:
    listing: ListingSegment
    draft: str  # what runs: the listing as shipped, or as the student edited it
    editing: bool = False
    may_edit: bool = True  # False: a Keras listing where the student has no shell
    running: int | None = None  # the number of the run under way
    runs: int = 0
    result: ListingResult | None = None
    ran_code: str | None = None  # the code the shown result came from
    notice: str = ""  # one line: why a key did nothing

    @classmethod
    def of(cls, listing: ListingSegment, may_edit: bool = True) -> ListingState:
        return cls(listing, _shown(listing), may_edit=may_edit)

    @property
    def edited(self) -> bool:
        return self.draft != _shown(self.listing)

    @property
    def result_is_stale(self) -> bool:
        """The output shown came from code that has changed since."""
        return self.result is not None and self.ran_code != self.draft

    @property
    def is_keras(self) -> bool:
        return self.listing.runner is ListingRunner.KERAS

    def edit(self) -> ListingState:
        if not self.may_edit:
            return replace(
                self,
                notice="This listing runs outside the code sandbox: it can be run as it"
                " stands, and edited where you have a shell (attn-tui run from one).",
            )
        return self if self.editing else replace(self, editing=True, notice="")

    def stop_editing(self) -> ListingState:
        return replace(self, editing=False) if self.editing else self

    def typed(self, text: str) -> ListingState:
        if text == self.draft or not self.editing:
            return self
        return replace(self, draft=text, notice="")

    def restored(self) -> ListingState:
        """Back to the listing as the lesson gives it."""
        return replace(self, draft=_shown(self.listing), notice="") if self.edited else self

    def run_started(self) -> tuple[ListingState, int | None]:
        """The next state and the run's number; None when a run is under way already."""
        if self.running is not None:
            return replace(self, notice="It is still running; the output comes here."), None
        number = self.runs + 1
        return replace(self, running=number, runs=number, notice=""), number

    def run_finished(self, number: int, code: str, result: ListingResult) -> ListingState:
        if number != self.running:
            return self  # an older run: the newer one's output wins
        return replace(self, running=None, result=result, ran_code=code)


def _shown(listing: ListingSegment) -> str:
    """The listing as the editor holds it: no empty last line after the final newline."""
    return listing.code.rstrip("\n")
