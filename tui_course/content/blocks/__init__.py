"""One module per lesson block kind, registered here (the shape of content.kinds and commands/).

A block is a fenced piece of a lesson whose body is TOML (```pe-table```). Each module under
tui_course.content.blocks holds all a kind is: its params (a frozen dataclass, each key's
type, range and default once), the rules that prove them, and where the layers above find
its text (CLI, plain mode, validate), its words for a listener and its live widget (see
base.BlockKind). Everything else asks the kind through `block_kind` instead of testing the
block's name. A module is imported on first use.

Adding a block kind is one module here and one line below; its text renderer, and its
widget if it has one, live in the layer that may draw them (render/, ui/).
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

from tui_course import specs

if TYPE_CHECKING:
    from tui_course.content.blocks.base import BlockKind, BlockParams
    from tui_course.content.tomlfile import TableCheck

# Names of the embedding sets in tui_course.maths.embeddings (a test keeps them equal).
EMBEDDING_SETS = specs.EMBEDDINGS.choices

# The block's name as a lesson's fence gives it -> its module under tui_course.content.blocks.
BLOCKS = {
    "attention": "attention",
    "real-attention": "real_attention",
    "pe-table": "pe_table",
    "heads": "heads",
    "key-dim": "key_dim",
    "score-spread": "score_spread",
    "digit-data": "digit_data",
    "params": "params",
}


@cache
def block_kind(name: str) -> BlockKind[Any]:
    """The registered kind called `name` (KeyError when there is none: see `parse_block`)."""
    module = importlib.import_module(f"{__name__}.{BLOCKS[name]}")
    found: BlockKind[Any] = module.KIND
    assert found.name == name, (found.name, name)
    return found


def names() -> str:
    """The block names a lesson may use, for error messages: "attention, digit-data, ..."."""
    return ", ".join(sorted(BLOCKS))


def parse_block(name: str, table: dict[str, Any], check: TableCheck) -> BlockParams:
    """A block's TOML body as its kind's params; ContentError (file:line) when the name is
    not a block kind or the body is malformed."""
    if name not in BLOCKS:
        raise check.error(f"unknown block '{name}' (known blocks: {names()})")
    params: BlockParams = block_kind(name).parse(table, check)
    return params
