"""A lesson's live block in plain mode: the figure as the CLI prints it, fitted to the
width, then its numbers in sentences (render/spoken.py) for a listener. Which text, words
and lab a block has comes from its kind (tui_course.content.blocks)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui_course.content.segments import BlockSegment

if TYPE_CHECKING:
    from tui_course.content.blocks.attention import AttentionParams
    from tui_course.content.blocks.pe_table import PETableParams
    from tui_course.content.blocks.real_attention import RealAttentionParams
    from tui_course.plain.console import Console
    from tui_course.realmodel.attention import ModelAttention

WORDS_FOR_ALL_ROWS = 6  # up to this many words, every row is said; beyond, the query's


def figure_lines(
    segment: BlockSegment, console: Console, data_dir: Path | None = None, grids: bool = True
) -> list[str]:
    """The figure as the CLI prints it (without `grids`, only its words), then its numbers
    in words and where to change it."""
    from tui_course.content.blocks import block_kind
    from tui_course.content.named import named
    from tui_course.render.blocks import BlockError, render_block

    kind = block_kind(segment.name)
    try:
        if kind.plain is not None:
            lines: list[str] = named(kind.plain)(segment.params, console, data_dir)
        else:
            words: list[str] = (
                [] if kind.words is None else named(kind.words)(segment.params, not grids)
            )
            spoken = grids or not words
            text = render_block(segment, width=console.width, ascii_only=console.ascii_only)
            lines = [f"Figure ({segment.name}, computed as you read):"]
            lines += text.split("\n") if spoken else []
            if words:
                lines += [*([""] if spoken else []), "In words:", *words]
    except BlockError as error:
        return [f"This figure cannot be drawn: {error}"]
    if kind.lab is not None:
        lines.append(f"To change it, type go {kind.lab} at the next prompt.")
    return [*lines, "End of figure."]


def attention_words(params: AttentionParams, tables: bool) -> list[str]:
    """An attention figure's weights as sentences: every row, or the query's when long."""
    from tui_course.render.blocks import compute_attention_block
    from tui_course.render.spoken import attention_in_words

    result, row = compute_attention_block(params)
    if row is None and len(result.tokens) > WORDS_FOR_ALL_ROWS:
        row = 0
    lines: list[str] = []
    for head in range(result.heads):
        said = attention_in_words(result.weights[head], result.tokens, row)
        if result.heads > 1:
            said = [f"Head {head + 1}: {line}" for line in said]
        lines += said
    return lines


def pe_table_words(params: PETableParams, tables: bool) -> list[str]:
    """A PE figure's similarity as sentences; with `tables`, its rows too."""
    from tui_course.render.spoken import pe_rows_in_words, similarity_in_words

    said = []
    if tables and params.table:
        said += pe_rows_in_words(params.positions, params.dim, params.start, params.decimals)
    if params.similarity:
        said += similarity_in_words(params.positions, params.dim, params.start)
    return said


def model_attention(
    sentence: str, data_dir: Path | None, merge: bool = True
) -> ModelAttention | str:
    """The pretrained model's attention (over whole words with `merge`, else word pieces,
    as `attn-tui attention --model` shows it), or why it cannot be had (one line)."""
    from tui_course.realmodel.service import attend_or_problem

    return attend_or_problem(sentence, data_dir, merge)


def real_attention_figure(
    params: RealAttentionParams, console: Console, data_dir: Path | None
) -> list[str]:
    """The toy contrast, then the model; with the block's `compare` sentence, one head in
    both sentences and every head's switch, as the app's figure shows them (the lesson's
    text argues from those lines)."""
    from tui_course.render.blocks import BlockError, real_attention_lines

    real = model_attention(params.sentence, data_dir)
    compare: ModelAttention | str | None = None
    if params.compare is not None and not isinstance(real, str):
        compare = model_attention(params.compare, data_dir)
        if isinstance(compare, str):
            real = compare  # both sentences or neither: the comparison is the point
    lines = ["Figure (toy vectors, then a pretrained model):"]
    if isinstance(real, str):
        lines += real_attention_lines(params, None, console.ascii_only)
        lines += ["", f"The real model is not shown: {real}"]
    else:
        assert not isinstance(compare, str)
        try:
            lines += real_attention_lines(params, real, console.ascii_only, compare)
        except BlockError as error:
            lines += real_attention_lines(params, None, console.ascii_only)
            lines += ["", f"The real model is not shown: {error}"]
    return [*lines, "End of figure."]
