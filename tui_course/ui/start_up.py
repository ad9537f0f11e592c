"""The app's first moments: what it has to say (a damaged progress file, broken content),
and the start item opened around the first frame, with nothing else taking focus first."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from tui_course.content.models import Item, Quiz
from tui_course.text.safe import one_line
from tui_course.ui.widgets.footer import CourseFooter

if TYPE_CHECKING:
    from textual.app import App

    from tui_course.content.errors import ContentError


def start_up_notices(
    app: App[Any], store_notice: str | None, problems: Sequence[ContentError]
) -> None:
    if store_notice:
        app.notify(
            one_line(store_notice), title="Progress", severity="warning", timeout=15, markup=False
        )
    if problems:
        more = f" (and {len(problems) - 1} more; run attn-tui validate)" if problems[1:] else ""
        app.notify(
            str(problems[0]) + more,
            title="Content problems",
            severity="warning",
            timeout=15,
            markup=False,
        )


def save_for_next_start(app: App[Any], *saves: Callable[[], None] | None) -> None:
    """Write what spares the next start some work (the parsed course, the parsed CSS), each
    in a thread of its own: nothing on screen waits for them."""
    for save in saves:
        if save is not None:
            app.run_worker(save, thread=True, group="next-start", exit_on_error=False)


class StartItem:
    """Opens the start item once: the outline shows in the first frame and a lesson
    (Markdown, maybe NumPy) right after it; a quiz opens before the first frame (its first
    screen is text, and one frame costs less than two)."""

    def __init__(
        self,
        app: App[Any],
        open_item: Callable[[str, bool], Awaitable[None]],
        opened_any: Callable[[], bool],
        first_focus: Callable[[], None],
        after_start: Callable[[], None],
        after_first_frame: Callable[[Callable[[], object]], None],
    ) -> None:
        self.app = app
        self.open_item = open_item
        self.opened_any = opened_any  # a key pressed in the first frame may open another
        self.first_focus = first_focus
        self.after_start = after_start
        self.after_first_frame = after_first_frame
        self.item: Item | None = None  # what opens after the first frame
        self.opening = True  # until it has opened (or failed to)

    def open(self, item: Item, focus_content: bool) -> None:
        """--open means "take me there": `focus_content`, the content gets the keyboard."""
        self.item = item
        if isinstance(item, Quiz):  # its keys, not those of the pane before it, come first
            self.app.query_one(CourseFooter).hold()
            self.app.call_next(self._open, focus_content)
            return
        self.after_first_frame(lambda: self._open(focus_content))

    async def open_instead(self, opening: Callable[[], Awaitable[None]]) -> None:
        """What opens at start in place of an item (`attn-tui review`): started once it has
        opened, or could not."""
        try:
            await opening()
        finally:
            self.opening = False

    def quiz_pending(self) -> bool:
        """The start item is a quiz not open yet. It focuses its own answer box when it
        opens: focusing another pane before would restyle every node and rebuild the
        footer once more, on a returning student's way to the summary."""
        return self.opening and isinstance(self.item, Quiz)

    async def _open(self, focus_content: bool) -> None:
        # A quiz opens before the first frame: nothing is drawn until it is open. (The
        # screen's own start, its resizes and the quiz's mounting would each draw a frame
        # of their own, the whole terminal's worth, that a returning student never reads
        # and thirty of them at once pay for in CPU.) Then the whole screen is drawn once.
        # Keys pressed from the first frame on go to the outline (as the usual first focus
        # gives it), not nowhere while the lesson opens. A quiz focuses its own box instead.
        self.first_focus()
        before_first_frame = isinstance(self.item, Quiz)
        with self.app.batch_update() if before_first_frame else nullcontext():
            try:
                if not self.opened_any() and self.item is not None:
                    await self.open_item(self.item.id, focus_content)
            finally:
                self.opening = False
                self.app.query_one(CourseFooter).release()
                # After the frame that shows it: a quiz opens before the first frame, and
                # what after_start does (the lessons' digest, the course cache) need not
                # delay it.
                self.app.call_after_refresh(self.after_start)
        if before_first_frame:
            self.app.screen.refresh()  # what the batch held back, drawn whole
        if not self.opened_any():  # the quiz could not open: the usual first focus
            self.first_focus()
