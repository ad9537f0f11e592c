"""The base of every interactive view: one state, compared by identity, drawn in batches.

A view's state is a frozen object from tui_course/views; each change makes a new one. The
widget holds it in one reactive, `state`, and draws it in one method, `draw(old, new)`:

- Identity, never equality: a changed state is a new object, so `is` says all there is to
  know, and a state holding NumPy arrays cannot raise on `==` (two equal states holding
  distinct arrays do: "the truth value of an array is ambiguous").
- Batched: several changes in one turn of the event loop (a held key, a worker's answer
  arriving with a key) give one draw, from the state last drawn to the newest. Setting the
  same object again draws nothing.
- The first draw is on mount (old is None), after the subclass's own on_mount.

Work (a forward pass, a check, a training run) starts from the action or event that changes
the state, never from `draw`, and its outcome comes back as one more state change.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

from textual import events
from textual.reactive import var
from textual.widget import Widget

S = TypeVar("S")


class StateView(Widget, Generic[S]):
    """Mixed in before a container: `class PEView(StateView[PEExplorer], Vertical)`.

    Textual takes a widget's CSS type names and DEFAULT_CSS from its first base only, so
    the container's own rules (a VerticalScroll's overflow) do not reach the view: a view
    that needs them states them in its DEFAULT_CSS (TrainingPanel does)."""

    # always_update: Textual would compare with `!=`; the watcher compares with `is`.
    state: var[S] = var(cast(Any, None), init=False, always_update=True)

    def __init__(
        self,
        state: S,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(StateView.state, state)  # type: ignore[misc]  # S is per instance
        self._drawn: S | None = None  # the state on screen now (None: never drawn)
        self._draw_scheduled = False

    def draw(self, old: S | None, new: S) -> None:
        """Make the screen show `new`; `old` is what it showed (None on the first draw)."""
        raise NotImplementedError

    def _watch_state(self, old: S, new: S) -> None:
        if new is old or self._draw_scheduled:
            return
        self._draw_scheduled = True
        self.call_later(self._draw_newest)

    def _on_mount(self, event: events.Mount) -> None:
        self._draw_newest()

    def _draw_newest(self) -> None:
        self._draw_scheduled = False
        new, old = self.state, self._drawn
        if new is old or not self.is_attached:
            return
        self._drawn = new
        self.draw(old, new)
