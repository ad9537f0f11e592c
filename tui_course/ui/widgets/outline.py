"""The course outline: lessons in order, quizzes after their lessons, each with its mark."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from tui_course.content.models import REVIEW_ID, Item, Lesson, Quiz
from tui_course.terminal import locale_is_utf8

OUTLINE_LABEL_WIDTH = 28  # the outline is 30 wide: a border and one cell of slack

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


def item_label(item: Item, mark: str) -> Text:
    """One line per item, cut to fit; plain Text (never markup): titles come from content files."""
    if isinstance(item, Lesson):
        text = f"{mark} {item.order:>2} {item.title}"
    elif isinstance(item, Quiz):
        text = f"{mark} Quiz: {item.title}"
    else:
        text = f"{mark} Lab: {item.title}"
    if len(text) > OUTLINE_LABEL_WIDTH:
        ellipsis = "\u2026" if locale_is_utf8() else "..."  # a C-locale terminal lacks the glyph
        text = text[: OUTLINE_LABEL_WIDTH - len(ellipsis)] + ellipsis
    return Text(text, no_wrap=True)


class Outline(OptionList):
    """Marks are characters, not colour (see MARKS_LEGEND), with their legend at the end."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
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
        super().__init__(*self._build_options(marks, review_due), **kwargs)  # type: ignore[arg-type]

    def _build_options(self, marks: Mapping[str, str], review_due: int | None) -> list[Option]:
        """`review_due` None: no question was ever scheduled, so no review entry."""
        options: list[Option] = []
        if review_due is not None:
            options.append(
                Option(Text(f"    Review ({review_due} due)", no_wrap=True), id=REVIEW_ID)
            )
        options += [
            Option(item_label(item, marks.get(item.id, "[ ]")), id=item.id)
            for item in self.course_items
        ]
        if self.notice:
            options.append(Option(Text(self.notice, no_wrap=True), disabled=True))
        # A blank line, then the legend (not selectable); not OptionList's separator, whose
        # rule is a box-drawing glyph even in ASCII mode.
        options.append(Option(Text(""), disabled=True))
        options += [Option(Text(line, no_wrap=True), disabled=True) for line in OUTLINE_LEGEND]
        return options

    def show_notice(self, text: str) -> None:
        if text != self.notice:
            self.notice = text
            self.update_marks(self.marks, self.review_due)

    def update_marks(self, marks: Mapping[str, str], review_due: int | None = None) -> None:
        self.marks, self.review_due = marks, review_due
        highlighted = self.highlighted_option.id if self.highlighted_option else None
        self.clear_options()
        self.add_options(self._build_options(marks, review_due))
        if highlighted is not None:
            self.select_id(highlighted)

    def select_id(self, item_id: str) -> None:
        try:
            self.highlighted = self.get_option_index(item_id)
        except OptionDoesNotExist:
            return
