"""The outline draws each row straight from its one line of text (OneLineLabel): the cells
and styles must be the ones OptionList's general path draws, in every state a row has
(plain, highlighted, hovered, disabled; side outline and the wider overlay; a title cut
with an ellipsis; wide CJK characters; the review entry and the notice)."""

from __future__ import annotations

import dataclasses

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import OptionList

from tests.ui.conftest import ui_course, until
from tui_course.content.models import Item, Lesson
from tui_course.ui.widgets.outline import OneLineLabel, Outline, item_label


class OptionListRows(Outline):
    """The same outline, each row drawn by OptionList's own general path."""

    _get_visual = OptionList._get_visual
    _get_option_render = OptionList._get_option_render


def course_items() -> list[Item]:
    items = list(ui_course().outline())
    first = next(item for item in items if isinstance(item, Lesson))
    wide = dataclasses.replace(first, id="wide", title="注意力机制：查询、键与值的点积")
    long = dataclasses.replace(first, id="long", title="A title far longer than any row " * 3)
    return [*items, wide, long]


class Pair(App[None]):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def compose(self) -> ComposeResult:
        items = course_items()
        marks = {items[0].id: "[x]", items[1].id: "[~] 1/3"}
        for kind, name in ((Outline, "fast"), (OptionListRows, "general")):
            outline = kind(items, marks, review_due=4, id=name)
            outline.styles.width = self.width
            outline.styles.border = ("none", "black")  # as in the app: labels fit their rows
            outline.styles.height = len(items) + 8
            yield outline


def cells(strip: Strip) -> list[tuple[str, object, object]]:
    """Each cell's character, style and meta, however the segments are cut. Text selection's
    'offset' is left out: OptionList takes no selection (ALLOW_SELECT is False), and its
    general path marks text cells with it, not padding cells."""
    found = []
    for segment in strip:
        style = segment.style
        meta = {key: value for key, value in (style.meta if style else {}).items()}
        meta.pop("offset", None)
        plain = style.clear_meta_and_links() if style else None
        found += [(character, plain, meta) for character in segment.text]
    return found


@pytest.mark.parametrize("width", [30, 50])
async def test_every_row_is_drawn_as_optionlist_draws_it(width: int) -> None:
    app = Pair(width)
    async with app.run_test(size=(120, 60)) as pilot:
        fast, general = app.query_one("#fast", Outline), app.query_one("#general", Outline)
        fast.show_notice("submission pending")
        general.show_notice("submission pending")
        assert await until(pilot, lambda: fast.option_count == general.option_count)
        rows = range(fast.scrollable_content_region.height)
        for focused in (False, True):
            for highlighted, hovered in ((1, None), (3, 2), (fast.option_count - 5, 0)):
                drawn = []
                for outline in (fast, general):  # each drawn with the focus it would have
                    outline.highlighted = highlighted
                    outline._mouse_hovering_over = hovered
                    app.set_focus(outline if focused else None)
                    await pilot.pause()
                    assert outline.has_focus == focused
                    drawn.append([cells(outline.render_line(y)) for y in rows])
                assert drawn[0] == drawn[1], (width, focused, highlighted, hovered)
        # The rows took the quick path: every row's visual is a OneLineLabel that fits.
        labels = [fast.get_option_at_index(index)._visual for index in range(fast.option_count)]
        room = fast.scrollable_content_region.width - 1  # less the padding's cell
        assert all(isinstance(label, OneLineLabel) and label.fits(room) for label in labels)


def test_only_one_line_of_plain_printable_text_takes_the_quick_path() -> None:
    def of(prompt: object) -> OneLineLabel | None:
        return OneLineLabel.of(prompt, lambda text: pytest.fail("not measured here"))

    assert of(Text("[ ]  1 Attention")) is not None
    assert of(Text("bold", style="bold")) is None
    assert of(Text.assemble(("a", "red"), "b")) is None
    assert of(Text("two\nlines")) is None
    assert of(Text("right", justify="right")) is None and of(Text("left", justify="left"))
    assert of(Text("escape \x1b[2J")) is None
    assert of("[b]markup[/b]") is None
    label = of(Text("注意力"))
    assert label is not None and label.cells == 6 and label.fits(6) and not label.fits(5)


@pytest.mark.parametrize("width", [27, 20, 9])
def test_a_title_is_cut_to_the_rows_cells_not_its_characters(width: int) -> None:
    """Two cells a CJK character: a title cut by characters ran past the row and wrapped."""
    first = next(item for item in ui_course().outline() if isinstance(item, Lesson))
    wide = dataclasses.replace(first, title="注意力机制：查询、键与值的点积")
    label = item_label(wide, "[ ]", width).plain
    assert cell_len(label) <= width and label.endswith(("\u2026", "..."))
    assert label.startswith(f"[ ] {first.order:>2}")
    assert "注" in label or width < 10
