"""The app's side of the class drop-box (only when the site config names a class folder):
what the student read and scored goes there in a thread, and a send that fails only
leaves "submission pending" under the outline until a later one gets through."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.progress.store import StoreError
from tui_course.ui.widgets.outline import Outline

if TYPE_CHECKING:
    from textual.app import App

    from tui_course.classroom.link import ClassLink
    from tui_course.classroom.submission import SubmitOutcome
    from tui_course.study import Study


class DropBoxClient:
    def __init__(
        self,
        app: App[Any],
        study: Study,
        store_problem: Callable[[str], None],
    ) -> None:
        self.app = app
        self.study = study
        self.store_problem = store_problem
        self.link: ClassLink | None = None
        self._data_dir: Path | None = None  # join's, until the site config has been read

    def show_notice(self, line: str) -> None:
        """The line under the outline ("" clears it)."""
        self.app.query_one(Outline).show_notice(line)

    def join(self, data_dir: Path) -> None:
        """Find the class folder the site config names (after the first frame: reading it
        is no part of the first screen, and a lab server's config is TOML to parse); resend
        what is pending from an earlier session. A send asked for before that joins first."""
        self._data_dir = data_dir
        self.app.call_after_refresh(self._joined)

    def _joined(self) -> ClassLink | None:
        """The class link, once the site config has been read (read now if not yet)."""
        data_dir, self._data_dir = self._data_dir, None
        if data_dir is None:
            return self.link
        from tui_course.classroom.link import PENDING_LABEL, ClassLink

        self.link, problem = ClassLink.from_site(data_dir)
        if problem:
            self.app.notify(problem, title="Class", severity="warning", timeout=15, markup=False)
        if self.link is not None and self.link.pending():
            self.show_notice(PENDING_LABEL)  # until the retry says otherwise
            self.submit(None)
        return self.link

    def submit(self, quiz_ids: Sequence[str] | None) -> None:
        """Send the lessons read and `quiz_ids` (None: only what is pending) in a thread;
        a failure only leaves "submission pending" under the outline."""
        link = self._joined()
        if link is None:
            return
        payload = None
        if quiz_ids is not None:  # quizzes owed from a busy moment go with these
            payload = self.study.submission(link, quiz_ids)
            if payload is None:  # the summary is read from the store; it may be busy
                self.store_problem(
                    "Your results were not sent to the class folder: your progress could not"
                    " be read just now. They go with the next quiz you finish, or run"
                    " `attn-tui submit`."
                )
                return

        def send() -> None:
            outcome = link.send(payload)
            self.app.call_from_thread(self._show, outcome)

        self.app.run_worker(send, thread=True, group="submit", exit_on_error=False)

    def submit_part_way(self, wait: float = 2.0) -> None:
        """On quitting with a quiz left part-way, send every quiz: otherwise the report
        never sees "in progress" from a student whose login is the app (ForceCommand)."""
        link = self._joined()
        if link is None:
            return
        try:
            payload = self.study.part_way(link)
        except StoreError:
            return
        if payload is not None:
            link.send_before_exit(payload, wait=wait)

    def _show(self, outcome: SubmitOutcome) -> None:
        from tui_course.classroom.link import PENDING_LABEL

        self.show_notice(PENDING_LABEL if outcome.pending else "")
