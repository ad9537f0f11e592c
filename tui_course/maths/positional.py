"""Sinusoidal positional encodings and how alike two positions look."""

from __future__ import annotations

import numpy as np

from tui_course.maths.attention import Array


def positional_encoding(num_positions: int, d_model: int, start: int = 0) -> Array:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(same angle).

    An odd d_model simply ends on a sine column.
    """
    if num_positions < 0 or d_model < 1:
        raise ValueError("need num_positions >= 0 and d_model >= 1")
    positions = np.arange(start, start + num_positions, dtype=np.float64)[:, None]
    pair_index = np.arange(d_model) // 2
    angles = positions / np.power(10000.0, 2 * pair_index / d_model)
    encoding: Array = np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))
    return encoding


def position_similarity(pe: Array) -> Array:
    """Cosine similarity between every pair of position vectors (rows of pe)."""
    norms = np.linalg.norm(pe, axis=-1, keepdims=True)
    unit: Array = np.divide(pe, norms, out=np.zeros_like(pe), where=norms > 0)
    similarity: Array = unit @ unit.T
    return similarity
