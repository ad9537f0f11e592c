"""Figures stated in words, for plain mode: what a screen reader can say in one breath.

A heatmap read cell by cell ("at at 32 percent percent 30") is noise to a listener;
these lines say the same numbers as sentences ("sat attends most to sat, 30 %, then
down, 29 %"). The numbers are the figures' own, rounded as the figures print them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from tui_course.maths.positional import position_similarity, positional_encoding
from tui_course.render.heatmap import format_percent

LISTED_KEYS = 3  # keys named per query; the rest are summed up in one clause


def _names(tokens: Sequence[str]) -> list[str]:
    """Each word as said: a word that occurs twice gets its place ("the, word 5")."""
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token.casefold()] = counts.get(token.casefold(), 0) + 1
    return [
        f"{token} (word {place})" if counts[token.casefold()] > 1 else token
        for place, token in enumerate(tokens, start=1)
    ]


def _percent(value: float) -> str:
    return f"{format_percent(value).strip()}\u00a0%"  # no line break inside "30 %"


def weights_in_words(weights: ArrayLike, tokens: Sequence[str], query: int) -> str:
    """One query's row: 'sat attends most to sat, 30 %, then down, 29 %, then ...'."""
    row = np.asarray(weights, dtype=np.float64)
    names = _names(tokens)
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))
    shown = order if len(order) <= LISTED_KEYS + 1 else order[:LISTED_KEYS]
    parts = [f"{names[shown[0]]}, {_percent(row[shown[0]])}"]
    parts += [f"then {names[i]}, {_percent(row[i])}" for i in shown[1:]]
    rest = order[len(shown) :]
    if rest:
        top = max(float(row[i]) for i in rest)
        parts.append(f"the other {len(rest)} words {_percent(top)} or less each")
    return f"{names[query]} attends most to " + ", ".join(parts) + "."


def attention_in_words(
    weights: ArrayLike, tokens: Sequence[str], query: int | None = None
) -> list[str]:
    """Every row of one head (or only `query`'s), a sentence each."""
    matrix = np.asarray(weights, dtype=np.float64)
    rows = range(len(tokens)) if query is None else [query]
    return [weights_in_words(matrix[row], tokens, row) for row in rows]


def similarity_in_words(positions: int, dim: int, start: int = 0) -> list[str]:
    """Each position's nearest other position by cosine similarity, and its farthest."""
    if positions < 2:
        return []
    similar = position_similarity(positional_encoding(positions, dim, start=start))
    lines = []
    for offset in range(positions):
        others = [o for o in range(positions) if o != offset]
        near = max(others, key=lambda o: (similar[offset, o], -o))
        far = min(others, key=lambda o: (similar[offset, o], o))
        lines.append(
            f"position {start + offset} is most like {start + near} "
            f"({similar[offset, near]:.2f}) and least like {start + far} "
            f"({similar[offset, far]:.2f})."
        )
    return lines


def pe_rows_in_words(positions: int, dim: int, start: int = 0, decimals: int = 3) -> list[str]:
    """A PE table's rows as sentences: 'position 1: sin 0 is 0.841, cos 1 is 0.540, ...'."""
    from tui_course.render.positional import column_names

    table = positional_encoding(positions, dim, start=start)
    names = column_names(dim)
    return [
        f"position {start + offset}: "
        + ", ".join(
            f"{name} is {value:.{decimals}f}" for name, value in zip(names, row, strict=True)
        )
        + "."
        for offset, row in enumerate(table)
    ]
