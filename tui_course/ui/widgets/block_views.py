"""The live views of the block kinds that have one, named by their kinds
(tui_course.content.blocks: `widget = "tui_course.ui.widgets.block_views:..."`).

Each takes the block's params and returns the view the lesson frames; it makes the
validator's checks first, so a block that cannot be computed raises BlockError (the
lesson shows it in place of the figure). The kinds without one are drawn as their text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui_course.content.blocks.attention import AttentionParams
    from tui_course.content.blocks.pe_table import PETableParams
    from tui_course.content.blocks.real_attention import RealAttentionParams


def attention_view(params: AttentionParams) -> Widget:
    from tui_course.render.blocks import attention_setup, compute_attention_block
    from tui_course.ui.widgets.attention_view import AttentionView

    _, row = compute_attention_block(params)  # the validator's checks
    return AttentionView(attention_setup(params), row, editable=params.editable, extras=params)


def pe_table_view(params: PETableParams) -> Widget:
    from tui_course.ui.widgets.pe_view import PEView

    return PEView(
        positions=params.positions,
        dim=params.dim,
        decimals=params.decimals,
        start=params.start,
        show_table=params.table,
        show_shaded=params.shaded,
        show_similarity=params.similarity,
    )


def real_attention_view(params: RealAttentionParams) -> Widget:
    from tui_course.render.blocks import real_attention_lines
    from tui_course.ui.widgets.real_model_view import RealAttentionFigure

    real_attention_lines(params, None)  # the validator's checks
    return RealAttentionFigure(params)
