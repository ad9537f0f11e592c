"""The maths of self-attention in plain NumPy: the numbers every lesson figure shows."""

from tui_course.maths.attention import (
    attention_loop,
    causal_mask,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from tui_course.maths.model_size import transformer_classifier_parameters
from tui_course.maths.positional import position_similarity, positional_encoding

__all__ = [
    "attention_loop",
    "causal_mask",
    "merge_heads",
    "multi_head_attention",
    "position_similarity",
    "positional_encoding",
    "scaled_dot_product_attention",
    "softmax",
    "split_heads",
    "transformer_classifier_parameters",
]
