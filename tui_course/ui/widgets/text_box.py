"""Textual's Input, without the leak of a box that was removed."""

from __future__ import annotations

from textual import events
from textual.screen import Screen
from textual.widgets import Input


class TextBox(Input):
    """An Input that lets its screen forget it when it goes.

    Input subscribes to its screen's text-selection signal when mounted and never
    unsubscribes; the signal keeps subscribers in a weak-keyed table whose value (a closure
    over the box) holds the key, so every removed box stayed in memory for as long as the
    screen lived: a lesson with a sentence box, opened again and again in a long session,
    kept one more Input (and its timers) each time."""

    _selection_screen: Screen[object] | None = None

    # No super() calls: Textual runs Input's and Widget's own _on_mount/_on_unmount after
    # these (each class's handler down the MRO), and a second Input._on_mount started a
    # second cursor-blink timer that toggled against the first.
    def _on_mount(self, event: events.Mount) -> None:
        self._selection_screen = self.screen

    def _on_unmount(self) -> None:
        if self._selection_screen is not None:
            self._selection_screen.text_selection_started_signal.unsubscribe(self)
            self._selection_screen = None
