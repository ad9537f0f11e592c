"""The course outline: lessons in order, quizzes after their lessons, each with its mark."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from tui_course.content.models import REVIEW_ID, Item, Lesson, Quiz
from tui_course.runtime.terminal import locale_is_utf8

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.style import Style
    from textual.visual import RenderOptions

# The outline is 30 wide: 28 for a row (the highlight marker's cell, then the label), the
# scrollbar and the border.
OUTLINE_LABEL_WIDTH = 27

# What the marks mean; shown under the outline and in the help screen.
MARKS_LEGEND = (
    ("[ ]", "not started; a lesson not read to its end yet"),
    ("[~] 1/3", "quiz in progress: 1 of 3 questions answered (not a score)"),
    ("[=] 2/3", "quiz finished: 2 of 3 right on the first try (the graded score)"),
    ("[x] 2/3", "the same, and every question since answered right without a reveal"),
    ("[x]", "lesson read to its end"),
)
# The same, short enough for the outline (28 columns, 3 lines so the course still fits 80x24).
OUTLINE_LEGEND = (
    "[ ] new  [~] i/n answered",
    "[=] n/m first-try score",
    "[x] all mastered / read",
)


def highlight_marker() -> str:
    """The glyph before the highlighted outline row: a triangle, or '>' in ASCII mode."""
    return "\u25b8" if locale_is_utf8() else ">"


def item_label(item: Item, mark: str, width: int = OUTLINE_LABEL_WIDTH) -> Text:
    """One line per item, cut to `width`; plain Text (never markup): titles come from
    content files."""
    if isinstance(item, Lesson):
        text = f"{mark} {item.order:>2} {item.title}"
    elif isinstance(item, Quiz):
        text = f"{mark} Quiz: {item.title}"
    else:
        text = f"{mark} Lab: {item.title}"
    if cell_len(text) > width:  # cells, not characters: a CJK character takes two
        ellipsis = "\u2026" if locale_is_utf8() else "..."  # a C-locale terminal lacks the glyph
        cut = set_cell_size(text, width - len(ellipsis))
        if not text.startswith(cut):  # a wide character did not fit: a space took its cell
            cut = cut[:-1]
        text = cut + ellipsis
    return Text(text, no_wrap=True)


class OneLineLabel(Visual):
    """A row of the outline: one line of plain text, which item_label has cut to the
    outline's width. Such a row is drawn straight from its text; OptionList first measures
    and wraps it as general rich text (the first frame's outline took 10 ms of CPU that
    way, 5 ms this way). A label
    wider than it is given (a narrower outline than item_label was told) is measured and
    drawn as OptionList draws any text, wrapped."""

    def __init__(self, text: Text, general: Callable[[Text], Visual]) -> None:
        self.text = text.plain
        self.cells = cell_len(self.text)
        self._prompt = text
        self._make_general = general
        self._general: Visual | None = None

    @classmethod
    def of(cls, prompt: object, general: Callable[[Text], Visual]) -> OneLineLabel | None:
        """The label for a prompt that is one line of printable text with no styles of its
        own (every row the outline makes); None for any other, which OptionList draws."""
        if not isinstance(prompt, Text) or prompt.spans or prompt.style:
            return None
        if prompt.justify not in (None, "default", "left"):  # placed in its row otherwise
            return None
        return cls(prompt, general) if prompt.plain.isprintable() else None

    def fits(self, width: int) -> bool:
        return self.cells <= width

    def general(self) -> Visual:
        if self._general is None:
            self._general = self._make_general(self._prompt)
        return self._general

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.cells

    def get_height(self, rules: RulesMap, width: int) -> int:
        return 1 if self.fits(width) else self.general().get_height(rules, width)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if not self.fits(width):
            return self.general().render_strips(width, height, style, options)
        rich_style = style.rich_style
        return [Strip([Segment(self.text, rich_style)], self.cells)]


class Outline(OptionList):
    """Marks are characters, not colour (see MARKS_LEGEND), with their legend at the end.
    The highlighted row starts with a marker glyph, so it shows without colour (NO_COLOR, a
    monochrome terminal, a screen reader): each row keeps a cell for it at its left."""

    DEFAULT_CSS = """
    Outline > .option-list--option {
        padding: 0 0 0 1;
    }
    """

    HELP_TITLE = "Outline"  # its section in the help (screens/help.py)
    HELP_RANK = 10
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, tooltip="Highlight the item below"),
        Binding("k", "cursor_up", "Up", show=False, tooltip="Highlight the item above"),
    ]

    def __init__(
        self,
        items: list[Item],
        marks: Mapping[str, str],
        review_due: int | None = None,
        **kwargs: object,
    ):
        self.course_items = items
        self.marks = marks
        self.review_due = review_due
        self.notice = ""  # one line under the items, e.g. "submission pending"
        self.label_width = OUTLINE_LABEL_WIDTH  # the overlay is wider: see on_resize
        self._first_drawn_width: int | None = None  # the rows' width in the first frame
        self._first_resize = True
        super().__init__(*self._build_options(marks, review_due), **kwargs)  # type: ignore[arg-type]

    def _build_options(self, marks: Mapping[str, str], review_due: int | None) -> list[Option]:
        """`review_due` None: no question was ever scheduled, so no review entry."""
        options: list[Option] = []
        if review_due is not None:
            options.append(
                Option(Text(f"    Review ({review_due} due)", no_wrap=True), id=REVIEW_ID)
            )
        options += [
            Option(item_label(item, marks.get(item.id, "[ ]"), self.label_width), id=item.id)
            for item in self.course_items
        ]
        if self.notice:
            options.append(Option(Text(self.notice, no_wrap=True), disabled=True))
        # A blank line, then the legend (not selectable); not OptionList's separator, whose
        # rule is a box-drawing glyph even in ASCII mode.
        options.append(Option(Text(""), disabled=True))
        options += [Option(Text(line, no_wrap=True), disabled=True) for line in OUTLINE_LEGEND]
        return options

    def _get_visual(self, option: Option) -> Visual:
        if option._visual is None:
            option._visual = OneLineLabel.of(option.prompt, self._general_visual)
        return super()._get_visual(option)

    def _general_visual(self, prompt: Text) -> Visual:
        return visualize(self, prompt, markup=False)

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        """A row drawn straight from its one line of text (OneLineLabel), the same cells
        OptionList draws; any other row (not a OneLineLabel, wider than the row, padded
        above or below, or with a divider) as OptionList draws it."""
        visual = self._get_visual(option)
        padding = self.get_component_styles("option-list--option").padding
        width = self.scrollable_content_region.width
        if (
            not isinstance(visual, OneLineLabel)
            or not visual.fits(width - padding.width)
            or padding.top
            or padding.bottom
            or option._divider
        ):
            return super()._get_option_render(option, style)
        cache_key = (option, style, padding)
        if (strips := self._option_render_cache.get(cache_key)) is None:
            rich_style = style.rich_style
            text = " " * padding.left + visual.text
            line = Strip([Segment(text, rich_style)], padding.left + visual.cells)
            line = line.extend_cell_length(width, rich_style)
            strips = [line.apply_meta({"option": self._option_to_index[option]})]
            self._option_render_cache[cache_key] = strips
        return strips

    def render_line(self, y: int) -> Strip:
        """OptionList's line, with the marker in the first cell of the highlighted row."""
        strip = super().render_line(y)
        try:  # the lines super() has just brought up to date (self._lines does it again)
            index, line_in_option = self._line_cache.lines[self.scroll_offset.y + y]
        except IndexError:
            return strip
        if index != self.highlighted or line_in_option != 0 or not strip.cell_length:
            return strip
        first = next(iter(strip), None)
        marker = Segment(highlight_marker(), first.style if first else None)
        return Strip.join([Strip([marker], 1), strip.crop(1, strip.cell_length)])

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._first_drawn_width is None:
            self._first_drawn_width = self.scrollable_content_region.width
        return super().render_lines(crop)

    def on_resize(self, event: events.Resize) -> None:
        """Titles use the width the outline has: the overlay below 100 columns is wider
        than the side outline, so it need not cut "Mini-checkpoint: why positions?".

        The first frame is drawn before the first Resize arrives. When that Resize finds the
        width the rows were first drawn at, OptionList's own handler (which drops every row
        drawn, as a new width needs) is skipped: the next frame, the first lesson's, does
        not draw the whole outline again. Every later Resize drops them, as before."""
        first, self._first_resize = self._first_resize, False
        if first and self.scrollable_content_region.width == self._first_drawn_width:
            event.prevent_default()
        if not self.display or self.size.width < 12:
            return  # hidden (the overlay before o opens it): nothing to lay out yet
        width = self.size.width - 2  # less the marker's cell and the scrollbar
        if width != self.label_width:
            self.label_width = width
            self.update_marks(self.marks, self.review_due)

    def show_notice(self, text: str) -> None:
        if text != self.notice:
            self.notice = text
            self.update_marks(self.marks, self.review_due)

    def update_marks(self, marks: Mapping[str, str], review_due: int | None = None) -> None:
        """Relabel the rows whose text changed, and only those: every closed or skipped
        question asks, and most change nothing (a new list of rows would be measured and
        drawn whole, the outline's every line, before the next question paints)."""
        self.marks, self.review_due = marks, review_due
        options = self._build_options(marks, review_due)
        shown = [self.get_option_at_index(index) for index in range(self.option_count)]
        if [option.id for option in options] == [option.id for option in shown]:
            for index, (option, old) in enumerate(zip(options, shown, strict=True)):
                if str(option.prompt) != str(old.prompt):
                    self.replace_option_prompt_at_index(index, option.prompt)
            return
        highlighted = self.highlighted_option.id if self.highlighted_option else None
        self.clear_options()
        self.add_options(options)
        if highlighted is not None:
            self.select_id(highlighted)

    def select_id(self, item_id: str) -> None:
        try:
            self.highlighted = self.get_option_index(item_id)
        except OptionDoesNotExist:
            return
