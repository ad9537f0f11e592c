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
HEADS_FIGURE_NUMBERS = 16  # the heads figure prints each head's matrices in full
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
        "norms": _BOOL,
    },
    "real-attention": {
        "sentence": Field((str,), "a string", required=True),
        "query": Field((str,), "a word of the sentence", required=True),
        "embeddings": _STR,
        "layer": _INT,
        "head": _INT,
        "compare": _STR,
        "between": Field((list,), "a list of two words", items=str),
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
        "key_dim": _INT,
        "tokens": _INT,
    },
    "key-dim": {
        "dim": Field((int,), "a whole number", required=True),
        "heads": Field((int,), "a whole number", required=True),
        "key_dims": Field((list,), "a list of whole numbers", required=True, items=int),
    },
    "score-spread": {
        "dims": Field((list,), "a list of whole numbers", required=True, items=int),
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
        "total_only": _BOOL,
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
    "heads": {
        "dim": specs.DIM,
        "heads": specs.SPLIT_HEADS,
        "key_dim": specs.KEY_DIM,
        "tokens": specs.SENTENCE_WORDS,
    },
    "key-dim": {"dim": specs.DIM, "heads": specs.SPLIT_HEADS},
    "score-spread": {},
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
    for key, spec in BLOCK_SPECS.get(name, {}).items():
        if key in params:
            problem = spec.problem(params[key])
            if problem is not None:
                raise check.error(problem, key)
    if name == "heads" and "key_dim" not in params and params["dim"] % params["heads"]:
        raise check.error(
            f"'dim' ({params['dim']}) must divide evenly into {params['heads']} heads"
            " (or give 'key_dim')",
            "dim",
        )
    if name == "heads" and params["dim"] * params["heads"] > HEADS_FIGURE_NUMBERS:
        raise check.error(
            f"the figure prints every matrix: dim x heads must be at most {HEADS_FIGURE_NUMBERS}",
            "dim",
        )
    if name == "real-attention" and ("compare" in params) != ("between" in params):
        raise check.error("'compare' and 'between' go together", "compare")
    if name == "real-attention" and len(params.get("between", ["", ""])) != 2:
        raise check.error("'between' must name two words of both sentences", "between")
    for key in ("key_dims", "dims"):
        for value in params.get(key, []) if name in ("key-dim", "score-spread") else []:
            spec = specs.KEY_DIM if key == "key_dims" else specs.DIM
            problem = spec.problem(value)
            if problem is not None:
                raise check.error(problem.replace(f"'{spec.name}'", f"each of '{key}'"), key)
