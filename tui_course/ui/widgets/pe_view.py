"""The live positional-encoding figure: table, shaded map and position similarity.

A StateView of a views.pe.PEExplorer, drawn with render.positional's words; each key is
one change of it.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.widgets import Static

from tui_course import specs
from tui_course.render.positional import (
    explorer_keys,
    pe_shaded_text,
    pe_table_text,
    position_labels,
    similarity_title,
)
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.item_line import ItemLine
from tui_course.ui.widgets.state_view import StateView
from tui_course.views.pe import PEExplorer


class PEView(StateView[PEExplorer], Vertical, can_focus=True):
    DEFAULT_CSS = """
    PEView {
        height: auto;
    }
    PEView .pe-controls {
        color: $text-muted;
        margin-bottom: 1;
    }
    PEView .pe-table, PEView .pe-shaded {
        height: auto;
        margin-bottom: 1;
    }
    PEView .pe-numbers, PEView .pe-shaded-map {
        width: auto;
    }
    PEView .pe-similarity-title {
        margin-bottom: 1;
    }
    """
    POSITIONS_KEYS = Binding.Group("Positions")
    DIM_KEYS = Binding.Group("d_model")
    # its section in the help (screens/help.py)
    HELP_TITLE = "Positional-encoding figure (in lessons and the PE lab)"
    HELP_RANK = 70
    BINDINGS = [
        Binding(
            "plus,equals_sign",
            "positions(1)",
            "More positions",
            key_display="+",
            group=POSITIONS_KEYS,
            tooltip="One more position",
        ),
        Binding(
            "minus",
            "positions(-1)",
            "Fewer positions",
            key_display="-",
            group=POSITIONS_KEYS,
            tooltip="One position fewer",
        ),
        Binding(
            "right_square_bracket",
            "dim(2)",
            "Wider",
            key_display="]",
            group=DIM_KEYS,
            tooltip="d_model up by 2",
        ),
        Binding(
            "left_square_bracket",
            "dim(-2)",
            "Narrower",
            key_display="[",
            group=DIM_KEYS,
            tooltip="d_model down by 2",
        ),
        Binding(
            "up,k", "select(-1)", "Position up", show=False, tooltip="Compare the position above"
        ),
        Binding(
            "down,j", "select(1)", "Position down", show=False, tooltip="Compare the position below"
        ),
    ]

    def __init__(
        self,
        positions: int = specs.POSITIONS.default,
        dim: int = specs.DIM.default,
        decimals: int = 3,
        start: int = specs.START.default,
        show_table: bool = True,
        show_shaded: bool = True,
        show_similarity: bool = True,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(PEExplorer.of(positions, dim, start), name=name, id=id, classes=classes)
        self.decimals = decimals
        self.show_table = show_table
        self.show_shaded = show_shaded
        self.show_similarity = show_similarity
        # The parts a draw fills in, made once and held (never looked up per draw).
        self._controls = ItemLine(classes="pe-controls")
        self._numbers = Static(classes="pe-numbers", markup=False)
        self._shaded = Static(classes="pe-shaded-map", markup=False)
        self._title = Static(classes="pe-similarity-title", markup=False)
        self._heatmap = HeatmapView(np.ones((1, 1)), ["0"], unit="cosine similarity", signed=True)

    def compose(self) -> ComposeResult:
        yield self._controls
        with HorizontalScroll(classes="pe-table") as table:
            table.display = self.show_table
            yield self._numbers
        with HorizontalScroll(classes="pe-shaded") as shaded:
            shaded.display = self.show_shaded
            yield self._shaded
        self._title.display = self._heatmap.display = self.show_similarity
        yield self._title
        yield self._heatmap

    def draw(self, old: PEExplorer | None, new: PEExplorer) -> None:
        """Draw the explorer; the table and map are redone only when the numbers changed
        (up/down only moves the compared row)."""
        self._controls.show(explorer_keys(new.positions, new.dim, new.start, self.show_similarity))
        numbers = (new.positions, new.dim, new.start)
        numbers_changed = old is None or (old.positions, old.dim, old.start) != numbers
        if numbers_changed:
            pe = new.encoding
            if self.show_table:
                self._numbers.update(Text(pe_table_text(pe, new.start, self.decimals)))
            if self.show_shaded:
                self._shaded.update(Text(pe_shaded_text(pe, new.start)))
        if self.show_similarity:
            self._title.update(Text(similarity_title(new.start + new.selected)))
            self._heatmap.show(
                new.similarity, position_labels(new.positions, new.start), new.selected
            )

    # actions: one state change each

    def action_positions(self, step: int) -> None:
        self.state = self.state.more_positions(step)

    def action_dim(self, step: int) -> None:
        self.state = self.state.wider(step)

    def action_select(self, step: int) -> None:
        self.state = self.state.select(step)

    @on(HeatmapView.RowClicked)
    def _row_clicked(self, event: HeatmapView.RowClicked) -> None:
        event.stop()
        self.focus()
        self.state = self.state.select_row(event.row)
