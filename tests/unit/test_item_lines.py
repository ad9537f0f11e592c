"""Key and switch lines break between items, never inside one."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement

from tui_course.render.item_lines import PackedItems, pack_items

SWITCHES = [
    "query 'train' (up/down, click)",
    "s scale on",
    "c causal off",
    "m heads 1",
    "e vectors toy-train",
]


def test_items_fill_a_line_then_move_whole_to_the_next() -> None:
    lines = pack_items(SWITCHES, 74)
    assert lines == [
        "query 'train' (up/down, click) | s scale on | c causal off | m heads 1",
        "e vectors toy-train",
    ]
    assert all(len(line) <= 74 for line in lines)


def test_everything_on_one_line_when_it_fits() -> None:
    assert pack_items(["a b", "c"], 20, "  |  ") == ["a b  |  c"]


def test_an_item_wider_than_the_line_wraps_between_its_words() -> None:
    assert pack_items(["one two three", "x"], 8) == ["one two", "three", "x"]


def test_width_counts_terminal_cells() -> None:
    assert pack_items(["\u7b2c\u4e00\u53e5", "ab"], 9) == ["\u7b2c\u4e00\u53e5", "ab"]


def drawn(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    with console.capture() as captured:
        console.print(renderable)
    return [line.rstrip() for line in captured.get().splitlines()]


@pytest.mark.parametrize("width", [12, 30, 74, 200])
def test_packed_items_lay_themselves_out_for_the_width_they_get(width: int) -> None:
    packed = PackedItems(tuple(SWITCHES), " | ")
    assert drawn(packed, width) == pack_items(SWITCHES, width)
    assert all(cell_len(line) <= width for line in drawn(packed, width))


def test_the_tail_wraps_as_prose_under_the_items() -> None:
    packed = PackedItems(("s scale on", "c causal off"), " | ", "that sentence has too many words")
    assert drawn(packed, 16) == [
        "s scale on",
        "c causal off",
        "that sentence",
        "has too many",
        "words",
    ]


def test_the_measure_is_one_word_at_least_and_every_item_on_a_line_at_most() -> None:
    console = Console(width=300, file=io.StringIO())
    packed = PackedItems(("s scale on", "m heads 1"), " | ")
    measured = Measurement.get(console, console.options, packed)
    assert (measured.minimum, measured.maximum) == (len("scale"), len("s scale on | m heads 1"))
    assert str(packed) == "s scale on | m heads 1"
