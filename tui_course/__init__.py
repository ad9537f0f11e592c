"""attn-tui: a terminal course on Transformers and self-attention."""

__version__ = "0.1.0"
