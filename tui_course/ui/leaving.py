"""Leaving the app: q asks first while training runs (a stray q, meant for a box that
lost focus, must not throw away a long run), and every way out (q, a signal, the
terminal gone) saves the lesson position, stops training and sends to the class first."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from tui_course.progress.store import ProgressStore
    from tui_course.ui.class_dropbox import DropBoxClient
    from tui_course.ui.widgets.training_panel import TrainingPanel

QUIT_CONFIRM_SECONDS = 5.0  # q during training asks; a second q within this quits


class Leaving:
    def __init__(
        self,
        app: App[Any],
        store: ProgressStore,
        drop_box: DropBoxClient,
        remember_position: Callable[[], None],
    ) -> None:
        self.app = app
        self.store = store
        self.drop_box = drop_box
        self.remember_position = remember_position
        self._quit_armed_until = 0.0  # a second q before this (monotonic) quits mid-training
        self.left_with: int | None = None  # the exit status when a signal or hangup ended it
        self.going = False  # the app is closing: what the student presses now does nothing

    async def quit(self) -> None:
        panels = self.training_panels()
        if any(panel.running for panel in panels) and time.monotonic() > self._quit_armed_until:
            self._quit_armed_until = time.monotonic() + QUIT_CONFIRM_SECONDS
            self.app.notify(
                f"Training is still running. Press q again within {QUIT_CONFIRM_SECONDS:.0f} s"
                " to stop it and quit.",
                title="Quit?",
                severity="warning",
                timeout=QUIT_CONFIRM_SECONDS,
                markup=False,
            )
            return
        self.going = True
        self.remember_position()
        for panel in panels:
            await panel.stop()
        self.drop_box.submit_part_way()
        self.app.exit()

    def leave_now(self, why: str, status: int) -> None:
        """The terminal went away or we were told to stop: save as q does, without asking,
        and go (hangup.watch ends the process if this takes over a second)."""
        self.left_with = status  # launch.run_app ends the process with it
        self.app.call_next(self._leave, terminal_gone=why != "SIGTERM")

    async def _leave(self, terminal_gone: bool) -> None:
        self.going = True
        self.remember_position()
        for panel in self.training_panels():
            await panel.stop()
        self.drop_box.submit_part_way(wait=0.3)  # kept in pending/ first; the rest goes next start
        if terminal_gone:  # nothing left to restore on a terminal that is not there
            from tui_course.runtime.hangup import end_process

            self.store.close()
            end_process(self.left_with or 0)
        self.app.exit()

    def training_panels(self) -> list[TrainingPanel]:
        """The training lab's panel, if it was ever opened (else its module is not loaded)."""
        if "tui_course.ui.widgets.training_panel" not in sys.modules:
            return []
        from tui_course.ui.widgets.training_panel import TrainingPanel

        return list(self.app.query(TrainingPanel))
