"""A lesson: Markdown prose with its computed figures in between."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import HorizontalScroll, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static

from tui_course.content.models import BlockSegment, Lesson, MarkdownSegment
from tui_course.render.blocks import BlockError, render_block


class Figure(HorizontalScroll):
    """A computed figure; scrolls sideways rather than wrapping a heatmap into noise."""

    def __init__(self, text: str, caption: str) -> None:
        super().__init__(classes="figure")
        self.border_title = caption
        self._text = text

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(self._text, markup=False, classes="figure-body")


class LessonView(VerticalScroll):
    BINDINGS = [
        Binding("j", "scroll_down", "Scroll down", show=False),
        Binding("k", "scroll_up", "Scroll up", show=False),
        Binding("space", "page_down", "Page down", show=False),
    ]

    class Finished(Message):
        """The student reached the end of the lesson."""

        def __init__(self, lesson_id: str) -> None:
            super().__init__()
            self.lesson_id = lesson_id

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lesson: Lesson | None = None
        self._finished_sent = False

    async def show(self, lesson: Lesson, scroll_y: float = 0.0) -> None:
        self.lesson = lesson
        self._finished_sent = False
        await self.remove_children()
        widgets = []
        for segment in lesson.segments:
            if isinstance(segment, MarkdownSegment):
                widgets.append(Markdown(segment.text, classes="prose"))
            elif isinstance(segment, BlockSegment):
                widgets.append(_figure(segment))
        await self.mount_all(widgets)
        # Markdown lays itself out after mounting; restore the position once it has.
        self.call_after_refresh(self.scroll_to, y=scroll_y, animate=False)

    def show_message(self, text: str) -> None:
        self.lesson = None
        self.remove_children()
        self.mount(Static(text, markup=False, classes="prose"))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._check_finished()

    def _check_finished(self) -> None:
        if self.lesson is None or self._finished_sent:
            return
        if self.max_scroll_y > 0 and self.scroll_y >= self.max_scroll_y - 1:
            self._finished_sent = True
            self.post_message(self.Finished(self.lesson.id))


def _figure(segment: BlockSegment) -> Figure:
    try:
        return Figure(render_block(segment), "computed live")
    except BlockError as error:
        return Figure(f"This figure cannot be drawn: {error}", "figure error")
