"""The optional extras and how to install them, for whoever needs to say so (the training
lab, `attn-tui train`, `attn-tui doctor`) without loading the training code."""

from __future__ import annotations

TRAIN_EXTRA_MISSING = (
    "needs the 'train' extra (Keras and TensorFlow): pip install 'attn-tui[train]'"
    " (from a checkout: pip install '.[train]')"
)


def train_extra_installed() -> bool:
    """Checked without importing either package: the app's process never loads them."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("keras", "tensorflow"))
