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

    def _on_mount(self, event: events.Mount) -> None:
        super()._on_mount(event)
        self._selection_screen = self.screen

    def _on_unmount(self) -> None:
        super()._on_unmount()
        if self._selection_screen is not None:
            self._selection_screen.text_selection_started_signal.unsubscribe(self)
            self._selection_screen = None
