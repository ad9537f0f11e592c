"""Parameter counts of the lab's Transformer classifier, layer by layer.

Plain arithmetic on the layer shapes, so the lesson can show where 14,049 comes
from without importing Keras.
"""

from __future__ import annotations


def attention_parameters(dim: int, heads: int, key_dim: int) -> int:
    """Keras MultiHeadAttention's weights: Wq, Wk, Wv each (dim, heads x key_dim) with a
    bias, and Wo (heads x key_dim, dim) with a bias. key_dim is one head's size, free."""
    width = heads * key_dim
    return 3 * (dim * width + width) + width * dim + dim


def transformer_classifier_parameters(
    vocab: int = 10,
    length: int = 30,
    dim: int = 32,
    heads: int = 4,
    key_dim: int = 16,
    ff: int = 64,
) -> list[tuple[str, int]]:
    """(layer, trainable parameters) for the section-10 model, in order."""
    return [
        (f"Embedding({vocab}, {dim}) tokens", vocab * dim),
        (f"Embedding({length}, {dim}) positions", length * dim),
        (
            f"MultiHeadAttention({heads} heads, key_dim {key_dim})",
            attention_parameters(dim, heads, key_dim),
        ),
        ("LayerNormalization", 2 * dim),
        (f"Dense({ff}, relu)", dim * ff + ff),
        (f"Dense({dim})", ff * dim + dim),
        ("LayerNormalization", 2 * dim),
        ("Dense(1, sigmoid)", dim + 1),
    ]
