"""What the attention explorer says beside its maps: the switches line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a view state is only read here: views import render, not back
    from tui_course.views.attention import AttentionExplorer


def controls(explorer: AttentionExplorer) -> tuple[list[str], str]:
    """The switches (and the query, when there is one), and a problem line under them."""
    setup, result = explorer.setup, explorer.result
    vectors = setup.embeddings if result is None else result.embeddings_used
    if result is not None and result.fallback is not None:
        vectors = f"{result.embeddings_used} ({result.fallback})"
    switches = [
        f"s scale {'on' if setup.scale else 'off'}",
        f"c causal {'on' if setup.causal else 'off'}",
        f"m heads {setup.heads}",
        f"e vectors {vectors}",
        f"% shade {'0-100' if explorer.absolute else 'to max'}",
    ]
    if result is None:
        return switches, explorer.problem or ""
    return [f"query '{explorer.query_word}' (up/down, click)", *switches], ""
