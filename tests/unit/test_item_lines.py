"""Key and switch lines break between items, never inside one."""

from __future__ import annotations

from tui_course.render.item_lines import pack_items

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
