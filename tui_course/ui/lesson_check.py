"""Every lesson's live blocks found after the first frame (markdown-it is not start-up
work), in a thread, and the lessons with a broken one named in a notice. Lessons that
passed in an earlier session, unchanged, are not parsed again: a returning student's
start is as lean as a new one's."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from tui_course.content.errors import ContentError
from tui_course.progress.outline import LESSON_BLOCKS_CHECKED
from tui_course.progress.store import ProgressStore, StoreError

if TYPE_CHECKING:
    from textual.app import App

    from tui_course.content.models import Course


class LessonBlocksCheck:
    def __init__(self, app: App[Any], course: Course, store: ProgressStore) -> None:
        self.app = app
        self.course = course
        self.store = store
        self.store_closed = False  # the app closed the store: a late memo is dropped

    def start(self) -> None:
        from tui_course.content.models import lessons_fingerprint

        fingerprint = lessons_fingerprint(self.course.lessons)
        if self.store.get_setting(LESSON_BLOCKS_CHECKED) == fingerprint:
            return

        def check() -> None:
            problems = []
            for lesson in self.course.lessons:
                try:
                    _ = lesson.segments
                except ContentError as error:
                    problems.append(str(error))
            if problems:
                more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
                message = f"{problems[0]}{more}; run attn-tui validate"
                self.app.call_from_thread(
                    self.app.notify,
                    message,
                    title="Content problems",
                    severity="warning",
                    timeout=15,
                )
            else:
                self.app.call_from_thread(self.passed, fingerprint)

        self.app.run_worker(check, thread=True, group="lesson-blocks", exit_on_error=False)

    def passed(self, fingerprint: str) -> None:
        if self.store_closed:  # the check ended as the app did: nothing to keep it in
            return
        with contextlib.suppress(StoreError):  # only a memo: the next start checks again
            self.store.set_setting(LESSON_BLOCKS_CHECKED, fingerprint)
