"""render.heatmap.Heatmap lays itself out in the width rich gives it (options.max_width):
the same picture heatmap_cells makes for that width, whole words only where they fit."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from rich.measure import Measurement

from tui_course.render.heatmap import Heatmap, format_percent, heatmap_cells, heatmap_text

WORDS = (
    "The",
    "animal",
    "didn't",
    "cross",
    "the",
    "street",
    "because",
    "it",
    "was",
    "too",
    "tired",
)
# The row labels are 7 cells ("because"); 11 key columns of 7 cells ("because") and a space
# between them need 7 + 2 + 11 * 8 - 1 = 96 cells; with the spare cell (8), 107.
EXACT_FIT = 96
WITH_SPARE_CELL = 107


def weights() -> np.ndarray:
    rng = np.random.default_rng(7)
    raw = rng.random((len(WORDS), len(WORDS)))
    return raw / raw.sum(axis=1, keepdims=True)


def figure() -> Heatmap:
    return Heatmap(weights(), WORDS, WORDS, selected=7)


def drawn(renderable: Heatmap, width: int) -> list[str]:
    """The lines rich prints for the renderable in a console `width` cells wide."""
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(renderable)
    output = console.file
    assert isinstance(output, io.StringIO)
    return [line.rstrip() for line in output.getvalue().splitlines()]


@pytest.mark.parametrize("width", [30, 40, EXACT_FIT - 1, EXACT_FIT, WITH_SPARE_CELL, 200])
def test_it_draws_what_heatmap_cells_lays_out_for_the_width(width: int) -> None:
    expected = heatmap_text(heatmap_cells(weights(), WORDS, WORDS, 7, width=width)).splitlines()
    lines = drawn(figure(), width)
    assert lines == expected
    assert all(len(line) <= width for line in lines)
    assert figure().height(width) == len(lines)


def test_narrow_it_numbers_a_window_of_columns_and_names_them_on_a_key_line() -> None:
    lines = drawn(figure(), 40)
    numbers = [int(number) for number in lines[0].split()]
    assert 1 < len(numbers) < len(WORDS)
    strongest = int(np.argmax(weights()[7]))
    assert strongest + 1 in numbers  # the window is kept around the row's strongest key
    keys = " ".join(line for line in lines if line.startswith(("keys:", "      ")))
    for number in numbers:
        assert f"{number} {WORDS[number - 1]}" in keys
    assert lines[-1].endswith(f"of {len(WORDS)}")


def test_at_the_exact_fit_every_word_heads_its_column_and_one_cell_less_numbers_them() -> None:
    exact = drawn(figure(), EXACT_FIT)
    assert exact[0].split() == list(WORDS)
    assert len(exact[0]) == EXACT_FIT
    assert "street because" in exact[0]  # no spare cell: one space between words
    short = drawn(figure(), EXACT_FIT - 1)
    assert short[0].split() == [str(number) for number in range(1, len(WORDS) + 1)]


def test_wide_the_words_get_a_spare_cell_and_the_values_are_the_weights() -> None:
    lines = drawn(figure(), 200)
    assert lines[0].split() == list(WORDS)
    assert "street  because" in lines[0]
    row = next(line for line in lines if line.startswith(">"))
    assert row.split()[0] == ">it"
    shown = [int(cell) for cell in row.split()[1:] if cell.isdigit()]
    assert shown == [int(format_percent(value)) for value in weights()[7]]


def test_it_measures_from_one_compact_column_to_every_word_on_one_line() -> None:
    console = Console(width=300, file=io.StringIO(), legacy_windows=False)
    wide = Measurement.get(console, console.options, figure())
    widest = max(len(line) for line in heatmap_text(figure().cells(None)).splitlines())
    assert wide.maximum == widest >= WITH_SPARE_CELL
    assert wide.minimum == 1 + 7 + 1 + 5  # the marker, the row labels, a space, one cell
    narrow = Measurement.get(console, console.options.update_width(30), figure())
    assert (narrow.minimum, narrow.maximum) == (14, 30)


def test_each_width_is_laid_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import tui_course.render.heatmap as module

    calls: list[int | None] = []
    real = module.heatmap_cells

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("width"))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "heatmap_cells", counted)
    shown = figure()
    assert shown.height(80) == len(drawn(shown, 80))
    drawn(shown, 80)
    assert calls == [80]
