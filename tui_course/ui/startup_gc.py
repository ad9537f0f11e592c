"""Cyclic garbage collection around the app's start-up.

Start-up builds a few hundred thousand objects (Textual's, the course's) that all stay
alive, so cyclic collection before the first frame only re-scans them: about a tenth of
the time to the outline. So it is paused while the app starts, what start-up built is
frozen out of it after the first frame (later full collections do not walk it all again),
and it is on again once the first item is open.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_for_start_up() -> Iterator[None]:
    """Around the whole run: the app resumes collection itself (resume_after_start); this
    covers every way out before that."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def freeze_start_up() -> None:
    """What start-up built lives as long as the app: kept out of later collections. (Only
    that: what the first item builds is freed when the student moves on.)"""
    gc.freeze()


def resume_after_start() -> None:
    """Frozen first: a quiz opens before the first frame, ahead of freeze_start_up, and
    collection turned on with start-up's objects unfrozen walks all of them in its first
    passes."""
    gc.freeze()
    gc.enable()
