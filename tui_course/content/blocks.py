"""The fenced blocks a lesson may embed, and the keys each accepts.

A block's body is TOML. This module checks its shape (keys, types, ranges);
whether the words exist in an embedding set is checked where the vectors live
(tui_course.render.blocks), so this layer stays free of NumPy.
"""

from __future__ import annotations

from typing import Any

from tui_course.content.tomlfile import Field, TableCheck

# Names of the embedding sets in tui_course.maths.embeddings (a test keeps them equal).
EMBEDDING_SETS = ("toy-cat-sat", "toy-it", "toy-train", "hashed")

_INT = Field((int,), "a whole number")
_BOOL = Field((bool,), "true or false")
_STR = Field((str,), "a string")

BLOCK_FIELDS: dict[str, dict[str, Field]] = {
    "attention": {
        "embeddings": Field((str,), "the name of an embedding set", required=True),
        "sentence": _STR,
        "query": _STR,
        "scale": _BOOL,
        "causal": _BOOL,
        "heads": _INT,
        "editable": _BOOL,
        "output": _BOOL,
        "loop_check": _BOOL,
        "decimals": _INT,
    },
    "real-attention": {
        "sentence": Field((str,), "a string", required=True),
        "query": Field((str,), "a word of the sentence", required=True),
        "embeddings": _STR,
        "layer": _INT,
        "head": _INT,
    },
    "pe-table": {
        "positions": _INT,
        "dim": _INT,
        "start": _INT,
        "decimals": _INT,
        "table": _BOOL,
        "shaded": _BOOL,
        "similarity": _BOOL,
    },
    "heads": {
        "dim": Field((int,), "a whole number", required=True),
        "heads": Field((int,), "a whole number", required=True),
    },
    "params": {
        "vocab": _INT,
        "length": _INT,
        "dim": _INT,
        "heads": _INT,
        "key_dim": _INT,
        "ff": _INT,
    },
}

_RANGES: dict[str, tuple[int, int]] = {
    "decimals": (1, 4),
    "positions": (1, 64),
    "dim": (1, 512),
    "start": (0, 10_000),
    "heads": (1, 64),
    "vocab": (1, 100_000),
    "length": (1, 10_000),
    "key_dim": (1, 512),
    "ff": (1, 10_000),
    "layer": (1, 64),
    "head": (1, 64),
}


def check_block(name: str, params: dict[str, Any], check: TableCheck) -> None:
    """Raise ContentError (with the key's line) if the block's body is malformed."""
    if name not in BLOCK_FIELDS:
        known = ", ".join(sorted(BLOCK_FIELDS))
        raise check.error(f"unknown block '{name}' (known blocks: {known})")
    check.check(params, BLOCK_FIELDS[name])
    for key, value in params.items():
        if key in _RANGES and isinstance(value, int) and not isinstance(value, bool):
            low, high = _RANGES[key]
            if not low <= value <= high:
                raise check.error(f"'{key}' must be between {low} and {high}, got {value}", key)
    if name == "attention" and params["embeddings"] not in EMBEDDING_SETS:
        known = ", ".join(EMBEDDING_SETS)
        raise check.error(
            f"unknown embeddings '{params['embeddings']}' (known: {known})", "embeddings"
        )
    if name == "real-attention" and params.get("embeddings", "hashed") not in EMBEDDING_SETS:
        known = ", ".join(EMBEDDING_SETS)
        raise check.error(
            f"unknown embeddings '{params['embeddings']}' (known: {known})", "embeddings"
        )
    if name == "attention" and params.get("heads", 1) not in (1, 2, 4):
        raise check.error("'heads' must be 1, 2 or 4", "heads")
    if name == "heads" and params["dim"] % params["heads"]:
        raise check.error(
            f"'dim' ({params['dim']}) must divide evenly into {params['heads']} heads", "dim"
        )
