"""Saved progress: every attempt, lessons read, and small settings, in SQLite."""

from tui_course.progress.store import Attempt, ProgressStore, QuizStats, StoreError

__all__ = ["Attempt", "ProgressStore", "QuizStats", "StoreError"]
