"""Self-attention in plain NumPy, written to be read next to the lessons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


def softmax(x: ArrayLike, axis: int = -1) -> Array:
    """Softmax that never overflows: subtracting the max leaves the result unchanged.

    Entries equal to -inf get weight 0; a slice that is all -inf gets all zeros.
    """
    values = np.asarray(x, dtype=np.float64)
    top = np.max(values, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    exps = np.exp(values - top)
    total = np.sum(exps, axis=axis, keepdims=True)
    weights: Array = np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
    return weights


def causal_mask(n: int) -> NDArray[np.bool_]:
    """True where query i may look at key j, i.e. j <= i (no peeking ahead)."""
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    scale: bool = True,
) -> tuple[Array, Array]:
    """softmax(Q K^T / sqrt(d_k)) V for 2-d (seq, d) or batched (..., seq, d) inputs.

    `mask` is boolean, True where attention is allowed; it broadcasts against the
    (..., queries, keys) score matrix, so a (keys,) padding mask covers every query.
    Returns (output, weights); masked weights are exactly 0.
    """
    queries = np.asarray(q, dtype=np.float64)
    keys = np.asarray(k, dtype=np.float64)
    values = np.asarray(v, dtype=np.float64)
    scores = queries @ np.swapaxes(keys, -1, -2)
    if scale:
        scores = scores / np.sqrt(keys.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ values, weights


def attention_loop(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    scale: bool = True,
    mask: ArrayLike | None = None,
) -> tuple[Array, Array]:
    """The same computation one query and one key at a time, as the lesson first explains it.

    A key the mask forbids (False at [query, key]) is skipped: it gets weight 0.
    """
    queries = np.asarray(q, dtype=np.float64)
    keys = np.asarray(k, dtype=np.float64)
    values = np.asarray(v, dtype=np.float64)
    shape = (len(queries), len(keys))
    allowed = (
        np.ones(shape, dtype=bool)
        if mask is None
        else np.broadcast_to(np.asarray(mask, dtype=bool), shape)
    )
    divisor = float(np.sqrt(keys.shape[-1])) if scale else 1.0
    outputs, all_weights = [], []
    for i, query in enumerate(queries):
        scores = []
        for j, key in enumerate(keys):
            scores.append(float(np.dot(query, key)) / divisor if allowed[i, j] else -np.inf)
        weights = softmax(scores)
        blended = np.zeros(values.shape[-1])
        for weight, value in zip(weights, values, strict=True):
            blended += weight * value
        outputs.append(blended)
        all_weights.append(weights)
    return np.array(outputs), np.array(all_weights)


def split_heads(x: ArrayLike, num_heads: int) -> Array:
    """(..., seq, d) -> (..., heads, seq, d // heads): head h gets a contiguous slice."""
    values = np.asarray(x, dtype=np.float64)
    *lead, seq, d = values.shape
    if num_heads < 1 or d % num_heads:
        raise ValueError(f"model dimension {d} does not split into {num_heads} heads")
    split = values.reshape(*lead, seq, num_heads, d // num_heads)
    return np.swapaxes(split, -2, -3)


def merge_heads(x: ArrayLike) -> Array:
    """(..., heads, seq, d_head) -> (..., seq, heads * d_head); the inverse of split_heads."""
    values = np.swapaxes(np.asarray(x, dtype=np.float64), -2, -3)
    *lead, seq, heads, d_head = values.shape
    return values.reshape(*lead, seq, heads * d_head)


@dataclass(frozen=True)
class HeadProjections:
    """The matrices of a multi-head layer: head h uses columns h*key_dim .. (h+1)*key_dim
    of Wq, Wk and Wv, and Wo maps the joined heads back to d."""

    heads: int
    key_dim: int
    wq: Array  # (d, heads * key_dim)
    wk: Array
    wv: Array
    wo: Array  # (heads * key_dim, d)

    def head_columns(self, head: int) -> slice:
        return slice(head * self.key_dim, (head + 1) * self.key_dim)


def head_size(d: int, num_heads: int) -> int:
    """Numbers per head: d / h when it divides, else rounded up (each head projects
    all d numbers to its own key_dim, as Keras' MultiHeadAttention does)."""
    return -(-d // num_heads)


def random_projections(
    d: int, num_heads: int, rng: np.random.Generator, key_dim: int | None = None
) -> HeadProjections:
    """Random, unlearned Wq, Wk, Wv, Wo drawn from `rng`, scaled to keep scores moderate."""
    head_dim = key_dim or head_size(d, num_heads)
    width = num_heads * head_dim
    wq, wk, wv = (rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, width)) for _ in range(3))
    wo = rng.normal(0.0, 1.0 / np.sqrt(width), size=(width, d))
    return HeadProjections(num_heads, head_dim, wq, wk, wv, wo)


def multi_head_attention(
    x: ArrayLike,
    num_heads: int,
    rng: np.random.Generator,
    mask: ArrayLike | None = None,
    scale: bool = True,
    key_dim: int | None = None,
) -> tuple[Array, Array]:
    """Self-attention with `num_heads` heads and explicit random projections.

    Like Keras' MultiHeadAttention, each head has its own key_dim (default: d /
    heads, rounded up), so any d works with any number of heads. Wq, Wk, Wv are
    (d, heads * key_dim) and Wo is (heads * key_dim, d), drawn from `rng`.
    Returns (output (seq, d), weights (heads, seq, seq)).
    """
    values = np.asarray(x, dtype=np.float64)
    projections = random_projections(values.shape[-1], num_heads, rng, key_dim)
    return projected_attention(values, projections, mask, scale)


def projected_attention(
    x: ArrayLike, projections: HeadProjections, mask: ArrayLike | None = None, scale: bool = True
) -> tuple[Array, Array]:
    """All heads at once: split the projected Q, K, V, attend (scores / sqrt(key_dim)),
    merge, project with Wo. Returns (output (seq, d), weights (heads, seq, seq))."""
    values = np.asarray(x, dtype=np.float64)
    heads = projections.heads
    heads_q = split_heads(values @ projections.wq, heads)
    heads_k = split_heads(values @ projections.wk, heads)
    heads_v = split_heads(values @ projections.wv, heads)
    blended, weights = scaled_dot_product_attention(heads_q, heads_k, heads_v, mask, scale)
    output: Array = merge_heads(blended) @ projections.wo
    return output, weights


def projected_attention_loop(
    x: ArrayLike, projections: HeadProjections, mask: ArrayLike | None = None, scale: bool = True
) -> tuple[Array, Array]:
    """The same as projected_attention, head by head and query by query with
    attention_loop, so the lesson's loop check covers heads and masks too."""
    values = np.asarray(x, dtype=np.float64)
    joined, all_weights = [], []
    for head in range(projections.heads):
        columns = projections.head_columns(head)
        q = values @ projections.wq[:, columns]
        k = values @ projections.wk[:, columns]
        v = values @ projections.wv[:, columns]
        blended, weights = attention_loop(q, k, v, scale, mask)
        joined.append(blended)
        all_weights.append(weights)
    output: Array = np.concatenate(joined, axis=-1) @ projections.wo
    return output, np.array(all_weights)


@dataclass(frozen=True)
class HeadSplitExample:
    """One token through a small multi-head layer: each head's own Wq, Wk, Wv take all d
    numbers of x; the projected q, k, v are what gets cut into heads."""

    x: Array  # (d,)
    wq: Array  # (heads, d, key_dim): head h's own matrices
    wk: Array
    wv: Array

    @property
    def heads(self) -> int:
        return int(self.wq.shape[0])

    @property
    def key_dim(self) -> int:
        return int(self.wq.shape[2])

    def per_head(self, head: int) -> tuple[Array, Array, Array]:
        """q, k, v of one head, each x times that head's own matrix."""
        return self.x @ self.wq[head], self.x @ self.wk[head], self.x @ self.wv[head]

    def stacked(self, which: str) -> Array:
        """The heads' matrices side by side: (d, heads * key_dim), one projection for all."""
        matrices = {"q": self.wq, "k": self.wk, "v": self.wv}[which]
        return np.concatenate(list(matrices), axis=1)

    def split_projection(self, which: str) -> Array:
        """x times the stacked matrix, then split_heads: (heads, 1, key_dim)."""
        return split_heads((self.x @ self.stacked(which))[None, :], self.heads)


def head_split_example(
    d: int, heads: int, key_dim: int | None = None, seed: int = 0
) -> HeadSplitExample:
    """Small whole-number x and matrices (so the products can be checked by hand)."""
    rng = np.random.default_rng(seed)
    size = key_dim or head_size(d, heads)
    x = rng.integers(-2, 4, size=d).astype(np.float64)
    wq, wk, wv = (rng.integers(-1, 3, size=(heads, d, size)).astype(np.float64) for _ in range(3))
    return HeadSplitExample(x, wq, wk, wv)


def dot_product_spread(dims: Sequence[int], samples: int = 4000, seed: int = 0) -> list[float]:
    """The standard deviation of q . k for random q, k whose components have variance 1,
    one per d: it grows like sqrt(d), which is why scores are divided by sqrt(d)."""
    rng = np.random.default_rng(seed)
    spreads = []
    for d in dims:
        q = rng.standard_normal((samples, d))
        k = rng.standard_normal((samples, d))
        spreads.append(float(np.std(np.sum(q * k, axis=1))))
    return spreads
