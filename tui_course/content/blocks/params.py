"""```params```: the trainable parameters of the lab's model (one encoder block), layer by
layer or as a total (text only)."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BOOL, INT, BlockKind, BlockParams, key


@dataclass(frozen=True)
class ParamsParams(BlockParams):
    """A size left out (None) is the lab model's own (maths.model_size says it, once)."""

    vocab: int | None = key(INT, None, specs.VOCAB)
    length: int | None = key(INT, None, specs.LENGTH)
    dim: int | None = key(INT, None, specs.DIM)
    heads: int | None = key(INT, None, specs.SPLIT_HEADS)
    key_dim: int | None = key(INT, None, specs.KEY_DIM)
    ff: int | None = key(INT, None, specs.FF)
    total_only: bool = key(BOOL, False)  # one line: the total

    def sizes(self) -> dict[str, int]:
        """The sizes the block gives, by name (the rest are the lab model's)."""
        given = {
            "vocab": self.vocab,
            "length": self.length,
            "dim": self.dim,
            "heads": self.heads,
            "key_dim": self.key_dim,
            "ff": self.ff,
        }
        return {name: size for name, size in given.items() if size is not None}


class Params(BlockKind[ParamsParams]):
    name = "params"
    params = ParamsParams
    text = "tui_course.render.blocks:params_text"


KIND = Params()
