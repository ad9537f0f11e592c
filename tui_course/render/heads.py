"""Multi-head figures as text: one token projected then split, what key_dim costs, and why
scores are divided by sqrt(d).

The numbers come from tui_course.maths; these functions only lay them out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from tui_course.maths.attention import HeadSplitExample, split_heads
from tui_course.maths.model_size import attention_parameters


def whole_vector(values: ArrayLike) -> str:
    """[3, 1, -1]: the example's numbers are whole, so no decimals to read past."""
    return "[" + ", ".join(f"{v:g}" for v in np.asarray(values, dtype=np.float64)) + "]"


def _matrix_rows(matrix: ArrayLike) -> list[str]:
    return ["[" + " ".join(f"{v:>2g}" for v in row) + "]" for row in np.asarray(matrix)]


def head_split_lines(example: HeadSplitExample, tokens: int = 0) -> list[str]:
    """Each head's own Wq, Wk, Wv on all of x; then the same q as one product, split.
    Lines stay short: the lesson column is narrow at 80 x 24."""
    d, heads, size = len(example.x), example.heads, example.key_dim
    lines = [
        f"x, one token, d = {d}: {whole_vector(example.x)}",
        f"Each of the {heads} heads has its own Wq, Wk, Wv,",
        f"each {d} x {size}: all {d} numbers of x go in,",
        f"key_dim = {size} numbers come out.",
    ]
    width = max(len(row) for row in _matrix_rows(example.wq[0])) + 3
    for head in range(heads):
        lines += ["", f"head {head + 1}"]
        lines.append("  " + "".join(name.ljust(width) for name in ("Wq", "Wk", "Wv")).rstrip())
        columns = [_matrix_rows(m[head]) for m in (example.wq, example.wk, example.wv)]
        for row in zip(*columns, strict=True):
            lines.append("  " + "".join(cell.ljust(width) for cell in row).rstrip())
        for name, vector in zip("qkv", example.per_head(head), strict=True):
            lines.append(f"  {name} = x W{name} = {whole_vector(vector)}")
    stacked = example.x @ example.stacked("q")
    split = example.split_projection("q")
    lines += [
        "",
        "The same as one product: the heads' Wq",
        f"side by side make one {d} x {heads * size} matrix; x times",
        f"it is the projected Q = {whole_vector(stacked)}.",
        f"split_heads cuts that Q into {heads} pieces:",
        *(f"  head {head + 1}: {whole_vector(split[head, 0])}" for head in range(heads)),
        "the q of each head above (K, V alike).",
        f"x itself is never cut: each head reads all {d}.",
    ]
    if tokens > 1:
        shape = split_heads(np.zeros((tokens, heads * size)), heads).shape
        lines += [
            "",
            f"{tokens} tokens: X is {tokens} x {d}, Q = X Wq is {tokens} x {heads * size},",
            f"split_heads(Q, {heads}) has shape {shape}:",
            "(heads, tokens, key_dim).",
        ]
    return lines


def key_dim_lines(dim: int, heads: int, key_dims: Sequence[int]) -> list[str]:
    """The attention layer's parameters for several key_dim values, next to d / h."""
    lines = [
        f"MultiHeadAttention, d = {dim}, {heads} heads:",
        "  key_dim   Q, K, V width   parameters",
    ]
    for key_dim in key_dims:
        width = f"{heads} x {key_dim} = {heads * key_dim}"
        count = f"{attention_parameters(dim, heads, key_dim):,}"
        lines.append(f"  {key_dim:>7}   {width:<13}   {count:>10}")
        if key_dim * heads == dim:
            lines.append("            (key_dim = d / h: the width is d)")
        elif key_dim == dim:
            lines.append("            (key_dim = d: full-width heads)")
    return lines


def spread_lines(dims: Sequence[int], spreads: Sequence[float], samples: int) -> list[str]:
    """How far dot products spread as d grows, next to sqrt(d)."""
    lines = [
        f"q . k over {samples:,} random pairs,",
        "components of variance 1:",
        "      d   std of q.k   sqrt(d)   ratio",
    ]
    for d, spread in zip(dims, spreads, strict=True):
        root = float(np.sqrt(d))
        lines.append(f"  {d:>5}   {spread:>10.2f}   {root:>7.2f}   {spread / root:>5.2f}")
    return lines
