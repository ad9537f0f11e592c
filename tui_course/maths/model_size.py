"""Parameter counts of the lab's Transformer classifier, layer by layer.

Plain arithmetic on the layer shapes, so the lesson can show where 14,049 comes
from without importing Keras.
"""

from __future__ import annotations


def transformer_classifier_parameters(
    vocab: int = 10,
    length: int = 30,
    dim: int = 32,
    heads: int = 4,
    key_dim: int = 16,
    ff: int = 64,
) -> list[tuple[str, int]]:
    """(layer, trainable parameters) for the section-10 model, in order."""
    projection = dim * heads * key_dim + heads * key_dim  # one of query/key/value
    return [
        (f"Embedding({vocab}, {dim}) tokens", vocab * dim),
        (f"Embedding({length}, {dim}) positions", length * dim),
        (
            f"MultiHeadAttention({heads} heads, key_dim {key_dim})",
            3 * projection + heads * key_dim * dim + dim,
        ),
        ("LayerNormalization", 2 * dim),
        (f"Dense({ff}, relu)", dim * ff + ff),
        (f"Dense({dim})", ff * dim + dim),
        ("LayerNormalization", 2 * dim),
        ("Dense(1, sigmoid)", dim + 1),
    ]
