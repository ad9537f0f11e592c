"""```real-attention```: a query word's weights from toy vectors, then from a pretrained
model on the same sentence (loaded in the app or plain mode when it is installed); with
`compare`, one head side by side in two sentences."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import INT, STR, BlockKind, BlockParams, key
from tui_course.content.tomlfile import Field, TableCheck


@dataclass(frozen=True)
class RealAttentionParams(BlockParams):
    sentence: str = key(STR)
    query: str = key(Field((str,), "a word of the sentence"))
    embeddings: str = key(STR, "hashed", specs.EMBEDDINGS)  # the toy vectors compared
    layer: int | None = key(INT, None, specs.MODEL_LAYER)
    head: int | None = key(INT, None, specs.MODEL_HEAD)
    compare: str | None = key(STR, None)  # a second sentence
    between: tuple[str, ...] | None = key(Field((list,), "a list of two words", items=str), None)


class RealAttention(BlockKind[RealAttentionParams]):
    name = "real-attention"
    params = RealAttentionParams
    text = "tui_course.render.blocks:real_attention_text"
    plain = "tui_course.plain.figures:real_attention_figure"
    widget = "tui_course.ui.widgets.block_views:real_attention_view"
    live_caption = "live: toy vectors, then a pretrained model"
    lab = "real-model-lab"

    def validate(self, params: RealAttentionParams, check: TableCheck) -> None:
        if (params.compare is None) != (params.between is None):
            raise check.error("'compare' and 'between' go together", "compare")
        if params.between is not None and len(params.between) != 2:
            raise check.error("'between' must name two words of both sentences", "between")


KIND = RealAttention()
