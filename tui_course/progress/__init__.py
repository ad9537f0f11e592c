"""Saved progress: every attempt, lessons read, and small settings, in SQLite.

The store's names are loaded on first use, not with the package: `attn-tui check` reads
progress.practice and progress.drafts before its verdict and opens the store only after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_course.progress.store import Attempt, ProgressStore, QuizStats, StoreError

__all__ = ["Attempt", "ProgressStore", "QuizStats", "StoreError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tui_course.progress import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
