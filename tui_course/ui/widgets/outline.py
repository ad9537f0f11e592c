"""The course outline: lessons in order, quizzes after their lessons, each with its mark."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_course.content.models import Item, Lesson, Quiz
from tui_course.terminal import locale_is_utf8

OUTLINE_LABEL_WIDTH = 28  # the outline is 30 wide: a border and one cell of slack


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
    """Marks are words and characters, not colour: [x] done, [ ] not yet, n/m scores."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, items: list[Item], marks: Mapping[str, str], **kwargs: object):
        self.course_items = items
        self.marks = marks
        self.notice = ""  # one line under the items, e.g. "submission pending"
        super().__init__(*self._build_options(marks), **kwargs)  # type: ignore[arg-type]

    def _build_options(self, marks: Mapping[str, str]) -> list[Option]:
        options = [
            Option(item_label(item, marks.get(item.id, "[ ]")), id=item.id)
            for item in self.course_items
        ]
        if self.notice:
            options.append(Option(Text(self.notice, no_wrap=True), disabled=True))
        return options

    def show_notice(self, text: str) -> None:
        if text != self.notice:
            self.notice = text
            self.update_marks(self.marks)

    def update_marks(self, marks: Mapping[str, str]) -> None:
        self.marks = marks
        highlighted = self.highlighted
        self.clear_options()
        self.add_options(self._build_options(marks))
        self.highlighted = highlighted

    def select_id(self, item_id: str) -> None:
        for index, item in enumerate(self.course_items):
            if item.id == item_id:
                self.highlighted = index
                return
