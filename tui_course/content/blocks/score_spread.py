"""```score-spread```: how far random dot products spread as the vectors grow, before and
after dividing by sqrt(d) (text only, sampled afresh by a fixed seed)."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BlockKind, BlockParams, each_in_range, key
from tui_course.content.tomlfile import Field, TableCheck


@dataclass(frozen=True)
class ScoreSpreadParams(BlockParams):
    dims: tuple[int, ...] = key(Field((list,), "a list of whole numbers", items=int))


class ScoreSpread(BlockKind[ScoreSpreadParams]):
    name = "score-spread"
    params = ScoreSpreadParams
    text = "tui_course.render.blocks:score_spread_text"

    def validate(self, params: ScoreSpreadParams, check: TableCheck) -> None:
        each_in_range(check, params.dims, specs.DIM, "dims")


KIND = ScoreSpread()
