"""```heads```: one token's vector split into heads, every matrix printed in full so the
products can be checked by hand (text only)."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import INT, BlockKind, BlockParams, key, spec_key
from tui_course.content.tomlfile import TableCheck

# The figure prints each head's matrices in full: dim x heads numbers at most.
HEADS_FIGURE_NUMBERS = 16


@dataclass(frozen=True)
class HeadsParams(BlockParams):
    dim: int = spec_key(specs.DIM, required=True)
    heads: int = spec_key(specs.SPLIT_HEADS, required=True)
    key_dim: int | None = key(INT, None, specs.KEY_DIM)  # None: dim / heads
    tokens: int = key(INT, 0, specs.SENTENCE_WORDS)  # 0: no tokens worked through


class Heads(BlockKind[HeadsParams]):
    name = "heads"
    params = HeadsParams
    text = "tui_course.render.blocks:heads_text"

    def validate(self, params: HeadsParams, check: TableCheck) -> None:
        if params.key_dim is None and params.dim % params.heads:
            raise check.error(
                f"'dim' ({params.dim}) must divide evenly into {params.heads} heads"
                " (or give 'key_dim')",
                "dim",
            )
        if params.dim * params.heads > HEADS_FIGURE_NUMBERS:
            raise check.error(
                "the figure prints every matrix: dim x heads must be at most"
                f" {HEADS_FIGURE_NUMBERS}",
                "dim",
            )


KIND = Heads()
