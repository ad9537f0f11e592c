"""A lesson: Markdown prose with its computed figures in between."""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from textual import events
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from tui_course.content.errors import ContentError
from tui_course.content.models import Lesson
from tui_course.text.safe import one_line

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from tui_course.content.segments import BlockSegment, ListingSegment


SCROLLS_SIDEWAYS = "wider than this: Tab here, then Left/Right"


class Figure(HorizontalScroll):
    """A computed figure; scrolls sideways rather than wrapping a heatmap into noise,
    and says so under its frame when it does not fit."""

    def __init__(self, text: str, caption: str) -> None:
        super().__init__(classes="figure")
        self.border_title = caption
        self._text = text

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(self._text, markup=False, classes="figure-body")

    def on_resize(self) -> None:
        self.call_after_refresh(self._say_if_it_scrolls)

    def _say_if_it_scrolls(self) -> None:
        subtitle = SCROLLS_SIDEWAYS if self.max_scroll_x > 0 else ""
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle


class LessonView(VerticalScroll):
    class Finished(Message):
        """The student reached the end of a lesson."""

        def __init__(self, view: LessonView, lesson_id: str) -> None:
            super().__init__()
            self.view = view
            self.lesson_id = lesson_id

        @property
        def control(self) -> LessonView:
            return self.view

    HELP_TITLE = "Lesson"  # its section in the help (screens/help.py)
    HELP_RANK = 20
    # Not Space: Space toggles a quiz option (one meaning per key); PgDn/PgUp page.
    BINDINGS = [
        Binding("j", "scroll_down", "Scroll down", show=False),
        Binding("k", "scroll_up", "Scroll up", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lesson: Lesson | None = None
        self._finished_sent = False
        self._pending_scroll: float | None = None

    async def show(self, lesson: Lesson, scroll_y: float = 0.0) -> None:
        try:
            segments = lesson.segments  # found on first use; a broken block is the lesson's
        except ContentError as error:
            await self.remove_children()
            self.show_message(f"This lesson cannot be shown: {error}")
            return
        self.lesson = lesson
        self._finished_sent = False
        await self.remove_children()
        from textual.widgets import Markdown  # markdown-it loads after the first frame

        from tui_course.content.markdown import markdown_parser
        from tui_course.content.segments import BlockSegment, ListingSegment, MarkdownSegment

        widgets: list[Widget] = []
        for segment in segments:
            match segment:
                case MarkdownSegment():
                    # A lesson's links are never opened: on a lab server the "browser" may be
                    # lynx taking over the terminal, and the link comes from a content file.
                    # Raw HTML in a lesson (<eos>, <pad>) is text: see content/markdown.py.
                    # Given its text here, it is parsed once, as it mounts (made empty and
                    # updated, it was parsed twice, each in a thread of its own).
                    markdown = Markdown(
                        segment.text,
                        classes="prose",
                        open_links=False,
                        parser_factory=markdown_parser,
                    )
                    widgets.append(markdown)
                case BlockSegment():
                    widgets.append(_figure(segment))
                case ListingSegment():
                    widgets.append(_listing(segment))
                case _:
                    assert_never(segment)
        await self.mount_all(widgets)  # returns once every Markdown's blocks are mounted
        self._pending_scroll = scroll_y or None
        self.scroll_home(animate=False)
        self.watch_virtual_size()
        # A lesson shorter than the screen never scrolls: its end is on screen once laid out.
        shown = lesson
        self.set_timer(0.3, lambda: self.check_finished() if self.lesson is shown else None)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Show where a link points, as text the student can copy; jump to #anchors."""
        event.stop()
        if event.href.startswith("#") and event.markdown.goto_anchor(event.href[1:]):
            return
        self.notify(one_line(event.href), title="Link (not opened)", markup=False)

    def show_message(self, text: str) -> None:
        self.lesson = None
        self.remove_children()
        self.mount(Static(text, markup=False, classes="prose"))

    def watch_virtual_size(self) -> None:
        """Restore a saved position once the lesson has grown tall enough to hold it.

        Markdown lays out its blocks over several refreshes, so scrolling right
        after mounting would be clamped to the first screen.
        """
        target = self._pending_scroll
        if target is not None and self.max_scroll_y >= target:
            self._pending_scroll = None
            self.call_after_refresh(self.scroll_to, y=target, animate=False)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Focusing a figure shows its top (its caption and switches), not its bottom."""
        figure = next(
            (node for node in event.widget.ancestors_with_self if node.has_class("figure")), None
        )
        if isinstance(figure, Widget):
            self.call_after_refresh(self.scroll_to_widget, figure, animate=False, top=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.check_finished()

    def _end_laid_out_on_screen(self) -> bool:
        """A short lesson's end is on screen once its last block has been laid out
        (a block not laid out yet has no height: that is not "read")."""
        if not self.display or not self.children or self.size.height == 0:
            return False
        last = self.children[-1]
        return last.region.height > 0 and last.virtual_region.bottom <= self.size.height

    @property
    def finish_reported(self) -> bool:
        """LessonView.Finished has been posted for the lesson on show (once per showing)."""
        return self._finished_sent

    def check_finished(self) -> None:
        """Post LessonView.Finished once the lesson's end is on screen; run by a timer after it is
        shown and on every scroll."""
        if self.lesson is None or self._finished_sent:
            return
        if self.max_scroll_y > 0:
            at_end = self.scroll_y >= self.max_scroll_y - 1
        else:
            at_end = self._end_laid_out_on_screen()
        if at_end:
            self._finished_sent = True
            self.post_message(self.Finished(self, self.lesson.id))


def _listing(segment: ListingSegment) -> Widget:
    """A runnable listing: NumPy ones edit freely (they run in the code sandbox); Keras ones
    run outside it, so they are edited only where the student has a shell anyway."""
    from tui_course.content.segments import ListingRunner
    from tui_course.ui.widgets.listing_view import ListingView

    may_edit = True
    if segment.runner is ListingRunner.KERAS:
        from tui_course.runtime.shell_access import shell_access

        may_edit = shell_access().allowed
    return ListingView(segment, may_edit=may_edit, classes="figure listing")


def _figure(segment: BlockSegment) -> Widget:
    """The block's live view where its kind has one (block_views.py); its text otherwise."""
    # Imported here: NumPy loads with the first lesson that has a figure, not at start-up.
    from tui_course.content.blocks import block_kind
    from tui_course.content.named import named
    from tui_course.render.blocks import BlockError, render_block

    kind = block_kind(segment.name)
    try:
        if kind.widget is None:
            return Figure(render_block(segment), "computed live")
        view: Widget = named(kind.widget)(segment.params)
    except BlockError as error:
        return Figure(f"This figure cannot be drawn: {error}", "figure error")
    return LiveFigure(view, kind.live_caption)


class LiveFigure(Vertical):
    """A bordered frame around a live view inside a lesson."""

    def __init__(self, view: Widget, caption: str) -> None:
        super().__init__(classes="figure live-figure")
        self.border_title = caption
        self.view = view

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.view
