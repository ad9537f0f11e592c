"""```pe-table```: sinusoidal position vectors as a table, a shaded map and how alike
positions are; live in the app (+/- and [ ] change it), as text for the CLI and plain mode."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BOOL, BlockKind, BlockParams, key, spec_key


@dataclass(frozen=True)
class PETableParams(BlockParams):
    positions: int = spec_key(specs.POSITIONS)
    dim: int = spec_key(specs.DIM)
    start: int = spec_key(specs.START)
    decimals: int = spec_key(specs.DECIMALS)
    table: bool = key(BOOL, True)  # the numbers
    shaded: bool = key(BOOL, False)  # the map of shades
    similarity: bool = key(BOOL, False)  # how alike each position is to the first


class PETable(BlockKind[PETableParams]):
    name = "pe-table"
    params = PETableParams
    text = "tui_course.render.blocks:pe_table_text"
    words = "tui_course.plain.figures:pe_table_words"
    widget = "tui_course.ui.widgets.block_views:pe_table_view"
    live_caption = "live: pe-table (Tab to it, ? for keys)"
    lab = "pe-lab"


KIND = PETable()
