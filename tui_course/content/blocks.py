"""The fenced blocks a lesson may embed, and the keys each accepts.

A block's body is TOML. This module checks its shape (keys, types, ranges);
whether the words exist in an embedding set is checked where the vectors live
(tui_course.render.blocks), so this layer stays free of NumPy.
"""

from __future__ import annotations

from typing import Any

from tui_course import specs
from tui_course.content.tomlfile import Field, TableCheck

# Names of the embedding sets in tui_course.maths.embeddings (a test keeps them equal).
EMBEDDING_SETS = specs.EMBEDDINGS.choices

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
    "digit-data": {
        "seed": _INT,
        "train": _INT,
        "test": _INT,
        "length": _INT,
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

# The allowed values of each block's numbers and names, from the one table in specs.
BLOCK_SPECS: dict[str, dict[str, specs.IntSpec | specs.ChoiceSpec]] = {
    "attention": {
        "embeddings": specs.EMBEDDINGS,
        "heads": specs.ATTENTION_HEADS,
        "decimals": specs.WEIGHT_DECIMALS,
    },
    "pe-table": {
        "positions": specs.POSITIONS,
        "dim": specs.DIM,
        "start": specs.START,
        "decimals": specs.DECIMALS,
    },
    "heads": {"dim": specs.DIM, "heads": specs.SPLIT_HEADS},
    "digit-data": {
        "seed": specs.SEED,
        "train": specs.TRAIN_SIZE,
        "test": specs.TEST_SIZE,
        "length": specs.LENGTH,
    },
    "params": {
        "vocab": specs.VOCAB,
        "length": specs.LENGTH,
        "dim": specs.DIM,
        "heads": specs.SPLIT_HEADS,
        "key_dim": specs.KEY_DIM,
        "ff": specs.FF,
    },
    "real-attention": {
        "embeddings": specs.EMBEDDINGS,
        "layer": specs.MODEL_LAYER,
        "head": specs.MODEL_HEAD,
    },
}


def check_block(name: str, params: dict[str, Any], check: TableCheck) -> None:
    """Raise ContentError (with the key's line) if the block's body is malformed."""
    if name not in BLOCK_FIELDS:
        known = ", ".join(sorted(BLOCK_FIELDS))
        raise check.error(f"unknown block '{name}' (known blocks: {known})")
    check.check(params, BLOCK_FIELDS[name])
    for key, spec in BLOCK_SPECS[name].items():
        if key in params:
            problem = spec.problem(params[key])
            if problem is not None:
                raise check.error(problem, key)
    if name == "heads" and params["dim"] % params["heads"]:
        raise check.error(
            f"'dim' ({params['dim']}) must divide evenly into {params['heads']} heads", "dim"
        )
