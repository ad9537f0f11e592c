"""```attention```: a sentence's attention weights computed from an embedding set, live in
the app (the query, heads and switches change), as text for the CLI and plain mode."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BOOL, STR, BlockKind, BlockParams, key, spec_key
from tui_course.content.tomlfile import Field


@dataclass(frozen=True)
class AttentionParams(BlockParams):
    embeddings: str = key(Field((str,), "the name of an embedding set"), spec=specs.EMBEDDINGS)
    sentence: str | None = key(STR, None)  # None: the embedding set's own sentence
    query: str | None = key(STR, None)  # a word of the sentence, its row picked
    scale: bool = key(BOOL, True)
    causal: bool = key(BOOL, False)
    heads: int = spec_key(specs.ATTENTION_HEADS)
    editable: bool = key(BOOL, False)  # the sentence can be typed over in the lesson
    output: bool = key(BOOL, False)  # the query's new vector under the weights
    loop_check: bool = key(BOOL, False)  # the loop and vectorised versions compared
    decimals: int = spec_key(specs.WEIGHT_DECIMALS)
    norms: bool = key(BOOL, False)  # the vectors' lengths, beside the dot products


class Attention(BlockKind[AttentionParams]):
    name = "attention"
    params = AttentionParams
    text = "tui_course.render.blocks:attention_text"
    words = "tui_course.plain.figures:attention_words"
    widget = "tui_course.ui.widgets.block_views:attention_view"
    live_caption = "live: attention (Tab to it, ? for keys)"
    lab = "attention-lab"


KIND = Attention()
