"""The positional-encoding explorer's state: how many positions, how wide, which one compared."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from tui_course import specs
from tui_course.maths.attention import Array
from tui_course.maths.positional import position_similarity, positional_encoding


@dataclass(frozen=True)
class PEExplorer:
    positions: int = specs.POSITIONS.default
    dim: int = specs.DIM.default
    start: int = specs.START.default
    selected: int = 0  # the position compared with the others, 0-based from `start`

    @classmethod
    def of(cls, positions: int, dim: int, start: int = specs.START.default) -> PEExplorer:
        """An explorer within the specs' bounds (a lesson block may ask for more)."""
        return cls(specs.POSITIONS.clamp(positions), specs.DIM.clamp(dim), specs.START.clamp(start))

    # the numbers, computed once per state (drawing asks for them more than once)

    @cached_property
    def encoding(self) -> Array:
        return positional_encoding(self.positions, self.dim, start=self.start)

    @cached_property
    def similarity(self) -> Array:
        return position_similarity(self.encoding)

    # changes

    def more_positions(self, step: int) -> PEExplorer:
        positions = specs.POSITIONS.step(self.positions, step)
        return replace(self, positions=positions, selected=min(self.selected, positions - 1))

    def wider(self, step: int) -> PEExplorer:
        return replace(self, dim=specs.DIM.step(self.dim, step))

    def select(self, step: int) -> PEExplorer:
        return replace(self, selected=(self.selected + step) % self.positions)

    def select_row(self, row: int) -> PEExplorer:
        return replace(self, selected=row) if 0 <= row < self.positions else self
