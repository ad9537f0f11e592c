"""Render a lesson's fenced block to text, computing its figure with tui_course.maths.

The validator calls render_block for every block, so a block that cannot be
computed (a word missing from a toy embedding set) is a content error, not a
surprise on screen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tui_course.content.models import BlockSegment
from tui_course.maths.attention import (
    attention_loop,
    causal_mask,
    scaled_dot_product_attention,
    split_heads,
)
from tui_course.maths.embeddings import SETS, UnknownWordError, embed, tokenize
from tui_course.maths.model_size import transformer_classifier_parameters
from tui_course.maths.positional import position_similarity, positional_encoding
from tui_course.render.heatmap import format_vector, heatmap_text, weight_bars
from tui_course.render.tables import number_table, two_column_table


class BlockError(ValueError):
    """The block is well-formed but its figure cannot be computed; says why in one line."""


def render_block(block: BlockSegment) -> str:
    renderers = {
        "attention": _attention,
        "pe-table": _pe_table,
        "heads": _heads,
        "params": _params,
    }
    return renderers[block.name](block.params)


def _attention(params: dict[str, Any]) -> str:
    set_name = params["embeddings"]
    embedding_set = SETS[set_name]
    tokens = tokenize(params.get("sentence", embedding_set.default_sentence))
    if not tokens:
        raise BlockError("the sentence has no words")
    try:
        vectors = embed(set_name, tokens)
    except UnknownWordError as error:
        raise BlockError(str(error)) from None
    scale = params.get("scale", True)
    mask = causal_mask(len(tokens)) if params.get("causal", False) else None
    output, weights = scaled_dot_product_attention(vectors, vectors, vectors, mask, scale)
    decimals = params.get("decimals", 2)
    query = params.get("query")
    lowered = [t.casefold() for t in tokens]
    if query is not None and query.casefold() not in lowered:
        raise BlockError(f"query '{query}' is not a word of the sentence")
    row = lowered.index(query.casefold()) if query is not None else None
    d = vectors.shape[1]
    how = f"scores / sqrt({d})" if scale else "scores not scaled"
    parts = [
        f"{set_name}, d = {d}, {how}" + (", causal mask" if mask is not None else ""),
        "",
        heatmap_text(weights, tokens, tokens, selected=row),
    ]
    if row is not None:
        parts += [
            "",
            f"Weights of '{tokens[row]}' (sum {weights[row].sum():.2f}):",
            weight_bars(weights[row], tokens, decimals),
        ]
        if params.get("output", False):
            parts += ["", f"New '{tokens[row]}' = {format_vector(output[row])}"]
    if params.get("loop_check", False):
        loop_output, _ = attention_loop(vectors, vectors, vectors, scale)
        gap = float(np.max(np.abs(loop_output - output)))
        parts += [
            "",
            "Loop and vectorised versions: " + ("identical" if gap < 1e-12 else "DIFFER"),
            f"(largest difference {gap:.1e})",
        ]
    return "\n".join(parts)


def _pe_table(params: dict[str, Any]) -> str:
    positions, dim = params.get("positions", 8), params.get("dim", 4)
    start = params.get("start", 0)
    decimals = params.get("decimals", 3)
    pe = positional_encoding(positions, dim, start=start)
    labels = [str(start + p) for p in range(positions)]
    columns = [f"{'sin' if i % 2 == 0 else 'cos'} {i}" for i in range(dim)]
    parts = [f"Sinusoidal PE, d_model = {dim}"]
    if params.get("table", True):
        parts += ["", number_table(pe, labels, columns, decimals=decimals, corner="pos")]
    if params.get("similarity", False):
        parts += [
            "",
            "Cosine similarity of positions:",
            heatmap_text(
                position_similarity(pe).clip(0, 1),
                labels,
                labels,
                unit="similarity",
                shade_from_min=True,
            ),
        ]
    return "\n".join(parts)


def _heads(params: dict[str, Any]) -> str:
    dim, heads = params["dim"], params["heads"]
    indices = split_heads(np.arange(dim)[None, :], heads)[:, 0, :].astype(int)
    lines = [f"x has {dim} components; {heads} heads of {dim // heads} each:"]
    for head, components in enumerate(indices, start=1):
        lines.append(f"  head {head}: " + ", ".join(f"x[{c}]" for c in components))
    return "\n".join(lines)


def _params(params: dict[str, Any]) -> str:
    layers = transformer_classifier_parameters(**params)
    rows = [(name, f"{count:,}") for name, count in layers]
    total = sum(count for _, count in layers)
    return two_column_table(rows, total=("Total trainable parameters", f"{total:,}"))
