"""Render a lesson's fenced block to text, computing its figure with tui_course.maths.

Each block kind (tui_course.content.blocks) names its text function here; render_block
finds it through the kind. The validator calls render_block for every block, so a block
that cannot be computed (a word missing from a toy embedding set) is a content error, not
a surprise on screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tui_course import specs
from tui_course.content.blocks import block_kind
from tui_course.content.blocks.attention import AttentionParams
from tui_course.content.named import named
from tui_course.content.segments import BlockSegment
from tui_course.maths.attention import dot_product_spread, head_split_example
from tui_course.maths.embeddings import SETS, UnknownWordError, embed, tokenize
from tui_course.maths.explore import (
    AttentionResult,
    AttentionSetup,
    NoWordsError,
    explore_attention,
)
from tui_course.maths.model_size import transformer_classifier_parameters
from tui_course.realmodel.attention import ModelAttention, QueryError
from tui_course.render.heads import head_split_lines, key_dim_lines, spread_lines
from tui_course.render.heatmap import format_vector, heatmap_cells, heatmap_text, weight_bars
from tui_course.render.positional import pe_report
from tui_course.render.real_model import contrast_lines, pair_lines
from tui_course.render.tables import two_column_table

if TYPE_CHECKING:
    from tui_course.content.blocks.digit_data import DigitDataParams
    from tui_course.content.blocks.heads import HeadsParams
    from tui_course.content.blocks.key_dim import KeyDimParams
    from tui_course.content.blocks.params import ParamsParams
    from tui_course.content.blocks.pe_table import PETableParams
    from tui_course.content.blocks.real_attention import RealAttentionParams
    from tui_course.content.blocks.score_spread import ScoreSpreadParams


class BlockError(ValueError):
    """The block is well-formed but its figure cannot be computed; says why in one line."""


def render_block(block: BlockSegment, width: int | None = None, ascii_only: bool = True) -> str:
    """The block's figure as text; `width` (columns) fits a heatmap or PE map to a terminal
    (`attn-tui --plain`), as the CLI does."""
    text: str = named(block_kind(block.name).text)(block.params, width, ascii_only)
    return text


def attention_setup(params: AttentionParams) -> AttentionSetup:
    """The live view's starting point for an `attention` block."""
    return AttentionSetup(
        sentence=params.sentence or SETS[params.embeddings].default_sentence,
        embeddings=params.embeddings,
        scale=params.scale,
        causal=params.causal,
        heads=params.heads,
    )


def query_row(result: AttentionResult, query: str | None) -> int | None:
    if query is None:
        return None
    lowered = [token.casefold() for token in result.tokens]
    if query.casefold() not in lowered:
        raise BlockError(f"query '{query}' is not a word of the sentence")
    return lowered.index(query.casefold())


def compute_attention_block(params: AttentionParams) -> tuple[AttentionResult, int | None]:
    """Compute a block's attention; a block must not silently fall back to other vectors,
    nor drop words past the limit (the live view would, with a note)."""
    setup = attention_setup(params)
    words = len(tokenize(setup.sentence))
    if words > specs.SENTENCE_WORDS.high:
        raise BlockError(
            f"'sentence' has {words} words; a figure takes at most {specs.SENTENCE_WORDS.high}"
        )
    try:
        result = explore_attention(setup)
    except NoWordsError as error:
        raise BlockError(str(error)) from None
    if result.embeddings_used != params.embeddings:
        try:
            embed(params.embeddings, list(result.tokens))
        except UnknownWordError as error:
            raise BlockError(str(error)) from None
    return result, query_row(result, params.query)


def attention_summary(result: AttentionResult) -> str:
    """What the figure computes, in a few short lines: vectors, heads and their size, scale."""
    if result.model is not None:
        return f"{result.model}\nits learned Wq, Wk, Wv; [CLS] and [SEP] are its markers"
    d, heads, size = result.d, result.heads, result.head_dim
    lines = [f"{result.embeddings_used}, d = {d}"]
    if heads == 1:
        lines[0] += ", one head: Q = K = V = the vectors"
    elif d % heads == 0:
        lines[0] += f", {heads} heads of size {size} (= {d} / {heads})"
        lines.append(f"each head projects all {d} numbers to its own {size} with its Wq, Wk, Wv")
    else:
        lines[0] += f", {heads} heads of size {size}"
        lines.append(
            f"{d} does not split into {heads} equal slices: each head projects all {d} numbers"
            f" to its own {size} ({d} / {heads} rounded up, like Keras' key_dim)"
        )
    where = " in each head" if heads > 1 else ""
    how = f"scores / sqrt({size}){where}" if result.setup.scale else "scores not scaled"
    causal = ", causal mask (no looking ahead)" if result.setup.causal else ""
    lines.append(how + causal)
    return "\n".join(lines)


def head_title(result: AttentionResult, head: int) -> str:
    """The label above one head's heatmap."""
    how = f"scores / sqrt({result.head_dim})" if result.setup.scale else "scores not scaled"
    return f"head {head + 1} of {result.heads}: size {result.head_dim}, {how}"


def attention_extras(
    result: AttentionResult, row: int | None, params: AttentionParams, ascii_only: bool = True
) -> list[str]:
    """The lines under the heatmap: the query's weights in every head, its new vector,
    and the loop check (as the block's `decimals`, `norms`, `output`, `loop_check` ask)."""
    parts: list[str] = []
    if row is not None:
        word = result.tokens[row]
        for head in range(result.heads):
            weights = result.weights[head, row]
            which = f", head {head + 1} of {result.heads}" if result.heads > 1 else ""
            parts += [
                *([""] if head else []),
                f"Weights of '{word}'{which} (sum {weights.sum():.2f}):",
                weight_bars(
                    weights,
                    result.tokens,
                    params.decimals,
                    ascii_only=ascii_only,
                    limit=8 if len(result.tokens) > 8 else None,
                ),
            ]
        if params.norms:
            parts += ["", *length_lines(result, row)]
        if params.output and result.model is None:  # a model has no toy output
            how = " (heads joined, then Wo)" if result.heads > 1 else ""
            parts += ["", f"New '{word}'{how} = {format_vector(result.outputs[row])}"]
    if params.loop_check:
        loop_outputs, loop_weights = result.loop_version()
        gap = max(
            float(np.max(np.abs(loop_outputs - result.outputs))),
            float(np.max(np.abs(loop_weights - result.weights))),
        )
        covers = ["scaled" if result.setup.scale else "not scaled"]
        covers += ["causal mask"] if result.setup.causal else []
        covers += [f"{result.heads} head{'s' if result.heads > 1 else ''}"]
        parts += [
            "",
            f"Loop and vectorised versions ({', '.join(covers)}): "
            + ("identical" if gap < 1e-12 else "DIFFER"),
            f"(largest difference {gap:.1e})",
        ]
    return parts


def length_lines(result: AttentionResult, row: int) -> list[str]:
    """The query's dot products are lengths times alignment: a long vector scores itself high."""
    vectors, tokens = result.vectors, result.tokens
    lengths = np.linalg.norm(vectors, axis=1)
    others = [key for key in range(len(tokens)) if tokens[key].casefold() != tokens[row].casefold()]
    lines = [
        "Lengths |x|: " + ", ".join(f"{t} {n:.2f}" for t, n in zip(tokens, lengths, strict=True))
    ]
    word = tokens[row]
    lines.append(f"'{word}' . '{word}' = |{word}|^2 = {float(vectors[row] @ vectors[row]):.2f}")
    if others:
        best = max(others, key=lambda key: float(vectors[row] @ vectors[key]))
        dot = float(vectors[row] @ vectors[best])
        cosine = dot / float(lengths[row] * lengths[best]) if lengths[best] else 0.0
        lines.append(
            f"'{word}' . '{tokens[best]}' = {dot:.2f} (cosine {cosine:.2f}): the next best"
        )
    return lines


def attention_text(params: AttentionParams, width: int | None, ascii_only: bool) -> str:
    result, row = compute_attention_block(params)
    parts = [attention_summary(result), ""]
    for head in range(result.heads):
        if result.heads > 1:
            parts.append(head_title(result, head))
        parts += [
            heatmap_text(
                heatmap_cells(
                    result.weights[head], result.tokens, result.tokens, selected=row, width=width
                )
            ),
            "",
        ]
    return "\n".join(parts + attention_extras(result, row, params, ascii_only)).rstrip()


def pe_table_text(params: PETableParams, width: int | None, ascii_only: bool) -> str:
    return pe_report(
        params.positions,
        params.dim,
        start=params.start,
        decimals=params.decimals,
        table=params.table,
        shaded=params.shaded,
        similarity=params.similarity,
        width=width,
    )


def heads_text(params: HeadsParams, width: int | None, ascii_only: bool) -> str:
    example = head_split_example(params.dim, params.heads, params.key_dim)
    return "\n".join(head_split_lines(example, params.tokens))


def key_dim_text(params: KeyDimParams, width: int | None, ascii_only: bool) -> str:
    return "\n".join(key_dim_lines(params.dim, params.heads, list(params.key_dims)))


SPREAD_SAMPLES = 4000


def score_spread_text(params: ScoreSpreadParams, width: int | None, ascii_only: bool) -> str:
    dims = list(params.dims)
    return "\n".join(spread_lines(dims, dot_product_spread(dims, SPREAD_SAMPLES), SPREAD_SAMPLES))


def digit_data_text(params: DigitDataParams, width: int | None, ascii_only: bool) -> str:
    """The lab's data made just now by its own generator, and its share of "same" rows."""
    from tui_course.render.training import data_lines
    from tui_course.training.task import make_data

    data = make_data(params.seed, params.train, params.test, params.length)
    return "\n".join(data_lines(data, params.seed))


def params_text(params: ParamsParams, width: int | None, ascii_only: bool) -> str:
    layers = transformer_classifier_parameters(**params.sizes())
    total = sum(count for _, count in layers)
    if params.total_only:
        return f"The lab's model (one encoder block): {total:,} trainable parameters"
    rows = [(name, f"{count:,}") for name, count in layers]
    return two_column_table(rows, total=("Total trainable parameters", f"{total:,}"))


def _words_of_both(params: RealAttentionParams) -> None:
    """A `compare` block's query and `between` words must be words of both sentences."""
    assert params.compare is not None and params.between is not None  # the kind checked
    for sentence in (params.sentence, params.compare):
        words = {word.casefold() for word in tokenize(sentence)}
        for word in (params.query, *params.between):
            if word.casefold() not in words:
                raise BlockError(f"'{word}' is not a word of '{sentence}'")


def real_attention_lines(
    params: RealAttentionParams,
    real: ModelAttention | None,
    ascii_only: bool = True,
    compare: ModelAttention | None = None,
) -> list[str]:
    """A `real-attention` block: the query's weights from toy vectors, then (given the model's
    merged-word attention) from the pretrained model on the same sentence; with `compare`
    (the model on the block's second sentence), one head side by side in both."""
    if params.compare is not None:
        _words_of_both(params)
    toy = AttentionParams(params.embeddings, sentence=params.sentence, query=params.query)
    result, row = compute_attention_block(toy)
    assert row is not None  # query is required, and compute_attention_block checked it
    layer, head = params.layer, params.head
    try:
        if real is not None and compare is not None:
            assert params.compare is not None and params.between is not None
            return [
                *contrast_lines(
                    result.tokens,
                    result.weights[0, row],
                    result.embeddings_used,
                    None,
                    params.query,
                    ascii=ascii_only,
                ),
                "",
                *pair_lines(
                    real,
                    compare,
                    (params.sentence, params.compare),
                    params.query,
                    (params.between[0], params.between[1]),
                    None if layer is None else layer - 1,
                    None if head is None else head - 1,
                ),
            ]
        return contrast_lines(
            result.tokens,
            result.weights[0, row],
            result.embeddings_used,
            real,
            params.query,
            None if layer is None else layer - 1,
            None if head is None else head - 1,
            ascii=ascii_only,
        )
    except (QueryError, IndexError) as error:
        message = str(error) if isinstance(error, QueryError) else "no such layer or head"
        if real is not None and not isinstance(error, QueryError):
            asked = ", ".join(
                f"{name} {value}" for name, value in (("layer", layer), ("head", head)) if value
            )
            message = f"it has {real.layers} layers of {real.heads} heads; the block asks {asked}"
        raise BlockError(f"the real model: {message}") from None


def real_attention_text(params: RealAttentionParams, width: int | None, ascii_only: bool) -> str:
    lines = real_attention_lines(params, None)
    lines += ["", "(the real model's weights are computed in the app when it is installed)"]
    return "\n".join(lines)
