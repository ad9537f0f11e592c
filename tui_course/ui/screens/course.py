"""The course screen: the outline beside the content when the terminal is wide, over it
(an overlay that o or Esc opens) when it is narrow, and where focus goes as it shows and
hides. The app decides what opens; this screen decides where it sits."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Header, Input

from tui_course.content.models import Item
from tui_course.study import OutlineState
from tui_course.ui.widgets.footer import CourseFooter
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.notices import NoticeLines
from tui_course.ui.widgets.outline import Outline

# Below this many columns the outline is an overlay that o (or Esc) opens over the lesson.
WIDE_COLUMNS = 100
TINY_COLUMNS = 60
ViewT = TypeVar("ViewT", bound=Widget)


def breakpoint_class(width: int) -> str:
    """The screen class for a terminal this wide (as HORIZONTAL_BREAKPOINTS names it)."""
    return "-tiny" if width < TINY_COLUMNS else "-narrow" if width < WIDE_COLUMNS else "-wide"


class CourseScreen(Screen[None]):
    # Screen classes: below WIDE_COLUMNS ("-narrow", "-tiny") the outline lays over the
    # content instead of beside it; "-tiny" also stacks forms (app.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (TINY_COLUMNS, "-narrow"), (WIDE_COLUMNS, "-wide")]
    # The app's own keys (q, help) come first in the help's "Everywhere"; then these.
    BINDINGS = [
        Binding(
            "escape",
            "back_out",
            "Back",
            show=False,
            tooltip="Back: leave the answer box first, then go to the outline",
        ),
        Binding(
            "n", "app.next_item", "Next item", tooltip="Next lesson, lab or quiz in the outline"
        ),
        Binding(
            "p",
            "app.previous_item",
            "Previous item",
            show=False,
            tooltip="Previous lesson, lab or quiz in the outline",
        ),
        # Not ctrl+b: that is the tmux prefix, and lab servers are used through tmux.
        Binding(
            "o",
            "toggle_outline",
            "Outline",
            tooltip="Show or hide the outline (over the lesson when the terminal is narrow)",
        ),
        # The app counts them (a Tab pressed while an item opens keeps its focus).
        Binding(
            "tab",
            "app.focus_next",
            "Next pane",
            show=False,
            tooltip="Move focus to the next pane",
        ),
        Binding(
            "shift+tab",
            "app.focus_previous",
            "Previous pane",
            show=False,
            tooltip="Move focus to the previous pane",
        ),
    ]

    def __init__(
        self,
        items: list[Item],
        outline: OutlineState,
        *,
        width: int,
        ascii_only: bool,
        start_pending: Callable[[], bool],
        on_ready: Callable[[], None],
    ) -> None:
        # Born with its breakpoint class: Textual sets it on the first resize, after the
        # first frame, which would draw (and style) the wrong layout once.
        super().__init__(id="_default", classes=breakpoint_class(width))
        self.items = items
        self.outline_state = outline
        self.ascii_only = ascii_only
        # The start item is a quiz not open yet: it focuses its own answer box, so nothing
        # here gives focus to another pane before it.
        self.start_pending = start_pending
        self.on_ready = on_ready  # the app's start, once the outline and content are here
        self._first_frame_drawn = False
        self._after_first_frame: list[Callable[[], object]] = []
        # What had focus when the outline overlay opened: closing it goes back there.
        self._focus_before_overlay: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="*" if self.ascii_only else None)
        with Horizontal(id="main"):
            state = self.outline_state
            yield Outline(self.items, state.marks, state.due, id="outline")
            with ContentSwitcher(initial="lesson", id="content"):
                yield LessonView(id="lesson")
        yield NoticeLines(id="notices")
        yield CourseFooter()

    def on_mount(self) -> None:
        self.on_ready()

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Run `callback` once the first frame is on the terminal: right after it, before
        Textual's own start-up refreshes (each a frame of its own, with nothing new to show
        yet), so what it mounts is drawn in those frames instead of after them."""
        if self._first_frame_drawn:
            self.call_next(callback)
        else:
            self._after_first_frame.append(callback)

    def on_screen_resume(self) -> None:
        """Textual draws the first frame as the screen resumes, before this handler runs."""
        if not self._first_frame_drawn:
            self._first_frame_drawn = True
            waiting, self._after_first_frame = self._after_first_frame, []
            for callback in waiting:
                self.call_next(callback)

    async def content_view(self, kind: type[ViewT], make: Callable[[], ViewT]) -> ViewT:
        """The content pane's view of this kind, made and mounted the first time it is
        asked for and kept (with its state) after."""
        found = self.query(kind)
        if found:
            return found.first()
        view = make()
        await self.query_one(ContentSwitcher).mount(view)
        return view

    @property
    def narrow(self) -> bool:
        return self.app.size.width < WIDE_COLUMNS

    @property
    def overlay_open(self) -> bool:
        return self.has_class("-outline-open")

    def first_focus(self) -> None:
        """The outline where it shows, else the lesson (a hidden outline holding focus made
        the first Tab vanish at 80 columns). Given at once, not a message later: before the
        first frame it is styled in the screen's own first styling (see CourseApp._start)."""
        if self.focused is None and not self.start_pending():
            self.set_focus(self.query_one(LessonView) if self.narrow else self.query_one(Outline))

    def action_back_out(self) -> None:
        focused = self.focused
        if isinstance(focused, Input):
            # First Esc leaves a text box for the view around it, so its keys work again.
            owner = next(
                (
                    node
                    for node in focused.ancestors
                    if isinstance(node, Widget) and node.can_focus and node is not focused
                ),
                None,
            )
            if owner is not None:
                owner.focus()
                return
        outline = self.query_one(Outline)
        if self.narrow and self.overlay_open and outline.has_focus:
            self.close_overlay()  # a second Esc puts the outline away again
            return
        if self.narrow:
            self.open_overlay()
        else:
            self.remove_class("-outline-hidden")
        outline.focus()

    def action_toggle_outline(self) -> None:
        if self.narrow:
            if self.overlay_open:
                self.close_overlay()
            else:
                self.open_overlay()
                self.query_one(Outline).focus()
            return
        self.toggle_class("-outline-hidden")
        self.focus_content_if_outline_hidden()

    def open_overlay(self) -> None:
        if not self.overlay_open:
            focused = self.focused
            self._focus_before_overlay = None if isinstance(focused, Outline) else focused
        self.add_class("-outline-open")

    def close_overlay(self, back_to_before: bool = True) -> None:
        """Put the overlay away; focus goes back to what had it before the overlay opened
        (unless `back_to_before` is False: an item just opened, its content takes focus)."""
        if not back_to_before:
            self._focus_before_overlay = None
        if self.overlay_open:
            self.remove_class("-outline-open")
            before, self._focus_before_overlay = self._focus_before_overlay, None
            if before is not None and before.is_attached and self.query_one(Outline).has_focus:
                before.focus()  # back to the figure or box the student was in
                return
            self.focus_content_if_outline_hidden()

    def focus_content_if_outline_hidden(self) -> None:
        """Hidden widgets keep focus in Textual; give it to the content instead."""
        outline = self.query_one(Outline)
        hidden = not self.overlay_open if self.narrow else self.has_class("-outline-hidden")
        nothing_focused = self.focused is None and not self.start_pending()
        if hidden and (outline.has_focus or nothing_focused):
            switcher = self.query_one(ContentSwitcher)
            current = switcher.query_one(f"#{switcher.current}") if switcher.current else None
            if isinstance(current, Widget):
                current.focus()  # a lab passes focus on to its figure or text box

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A steady text cursor: a blinking one redraws twice a second while nobody types.
        Focus moving from the overlay into the content (n, p, Tab, a click) puts the
        overlay away: left open, it would cover the very place that has the keys."""
        if isinstance(event.widget, Input):
            event.widget.cursor_blink = False
        if self.overlay_open and not isinstance(event.widget, Outline):
            self.remove_class("-outline-open")

    def resized(self, width: int) -> None:
        """Crossing the breakpoint may hide the focused outline: move focus to the content.
        Widening puts an open overlay away (the outline now sits beside the content)."""
        if width >= WIDE_COLUMNS:
            self.remove_class("-outline-open")
        self.call_after_refresh(self.focus_content_if_outline_hidden)
