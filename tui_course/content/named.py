"""The registries' one link upward: a kind names the function that draws it in a layer
above this one (render/, plain/, ui/) as "package.module:attribute", and that layer, which
may import it, resolves the name here. So loading content never imports NumPy or Textual."""

from __future__ import annotations

import importlib
from typing import Any


def named(path: str) -> Any:
    """The object `path` ("package.module:attribute") names, its module imported on first use."""
    module, colon, attribute = path.partition(":")
    if not colon or not attribute:
        raise ValueError(f"not a 'module:attribute' path: {path!r}")
    return getattr(importlib.import_module(module), attribute)
