"""`attn-tui doctor` inside the app: students under ForceCommand have no shell to run it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui_course.ui.screens.help import MODAL_BOX_CSS


def doctor_text(data_dir: Path, size: tuple[int, int]) -> str:
    """The same checks and text as the command (run off the event loop: NFS may hang)."""
    from tui_course.classroom.doctor import format_checks, run_checks
    from tui_course.runtime.terminal import locale_is_utf8
    from tui_course.training.runner import train_extra_installed

    terminal = os.terminal_size(size)
    checks = run_checks(os.environ, terminal, locale_is_utf8(), data_dir, train_extra_installed)
    return format_checks(checks)


class DoctorScreen(ModalScreen[None]):
    """The report in a scrolling box, as plain text (paths may hold anything)."""

    DEFAULT_CSS = f"""
    DoctorScreen {{
        {MODAL_BOX_CSS}
    }}
    """
    AUTO_FOCUS = "#doctor-box"
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, report: str) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="doctor-box") as box:
            box.border_title = "Doctor: this account and server (Esc closes)"
            yield Static(Text(self.report), id="doctor-text")


async def show_doctor(app: App[Any], data_dir: Path) -> None:
    size = (app.size.width, app.size.height)
    report = await asyncio.to_thread(doctor_text, data_dir, size)
    await app.push_screen(DoctorScreen(report))
