"""What the app needs from the class: send a finished quiz, retry what is pending.

The app builds the payload on its own thread (the store is not shared across
threads) and sends it from a worker thread, so a slow or absent network folder
never freezes the screen. The submission code is imported on first use: a start
without a class folder pays only for reading the site config.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.classroom.config import ConfigError, load_site_config

if TYPE_CHECKING:
    from tui_course.classroom.submission import SubmitOutcome
    from tui_course.content.models import Course
    from tui_course.progress.store import ProgressStore

PENDING_LABEL = "(!) submission pending"


@dataclass(frozen=True)
class ClassLink:
    class_dir: Path
    data_dir: Path

    @classmethod
    def from_site(cls, data_dir: Path) -> tuple[ClassLink | None, str | None]:
        """The link when the site config names a class folder; else None and maybe a problem."""
        try:
            site = load_site_config()
        except ConfigError as error:
            return None, f"Site config: {error}"
        if site.class_dir is None:
            return None, None
        from tui_course.progress.practice import NOT_SENT, is_practice

        if is_practice(data_dir):  # another content folder: its passes count for nothing
            return None, f"this is not the site's course: {NOT_SENT}"
        return cls(site.class_dir, data_dir), None

    def payload(
        self, course: Course, store: ProgressStore, quiz_ids: str | Collection[str]
    ) -> dict[str, Any] | None:
        """The lessons read and the quizzes `quiz_ids` (none: a lesson was just read).
        None when the progress cannot be read now: the app owes it and sends it with the
        next finish (or `attn-tui submit` does), since everything stays in the store. A
        submission never stops the app."""
        from tui_course.classroom.submission import build_submission
        from tui_course.progress.report import progress_report

        wanted = [quiz_ids] if isinstance(quiz_ids, str) else list(quiz_ids)
        try:
            return build_submission(progress_report(course, store), wanted)
        except Exception:
            return None

    def send_before_exit(self, payload: dict[str, Any], wait: float) -> None:
        """Keep `payload` in pending/ (the local disk: quick), then give the drop-box at most
        `wait` seconds: a hung network folder never holds up a student who is leaving, and
        what did not arrive is sent on the next start."""
        import contextlib
        import threading

        from tui_course.classroom.submission import (
            encode_submission,
            keep_pending,
            login_name,
            submit,
        )

        with contextlib.suppress(OSError):
            keep_pending(self.data_dir, encode_submission(payload), login_name())
        sender = threading.Thread(
            target=submit, args=(None, self.class_dir, self.data_dir), daemon=True
        )
        sender.start()
        sender.join(wait)

    def send(self, payload: dict[str, Any] | None) -> SubmitOutcome:
        from tui_course.classroom.submission import submit

        return submit(payload, self.class_dir, self.data_dir)

    def pending(self) -> int:
        from tui_course.classroom.submission import pending_files

        return len(pending_files(self.data_dir))
