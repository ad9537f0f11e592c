"""```key-dim```: what each head's size (key_dim) costs and gives, for a model's width and
heads (text only)."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BlockKind, BlockParams, each_in_range, key, spec_key
from tui_course.content.tomlfile import Field, TableCheck


@dataclass(frozen=True)
class KeyDimParams(BlockParams):
    dim: int = spec_key(specs.DIM, required=True)
    heads: int = spec_key(specs.SPLIT_HEADS, required=True)
    key_dims: tuple[int, ...] = key(Field((list,), "a list of whole numbers", items=int))


class KeyDim(BlockKind[KeyDimParams]):
    name = "key-dim"
    params = KeyDimParams
    text = "tui_course.render.blocks:key_dim_text"

    def validate(self, params: KeyDimParams, check: TableCheck) -> None:
        each_in_range(check, params.key_dims, specs.KEY_DIM, "key_dims")


KIND = KeyDim()
