"""Two SVG snapshots at 80x24: the main screen and a quiz verdict. Kept few on purpose."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from tui_course.ui.app import CourseApp


async def _wait_until_open(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CourseApp)
    for _ in range(200):
        if app.current is not None:
            break
        await pilot.pause(0.01)
    await pilot.pause()


def test_main_screen(snap_compare: Any, build_app: Callable[..., CourseApp]) -> None:
    assert snap_compare(build_app(), terminal_size=(80, 24), run_before=_wait_until_open)


def test_quiz_verdict(snap_compare: Any, build_app: Callable[..., CourseApp]) -> None:
    async def answer_wrong(pilot: Pilot[Any]) -> None:
        """Past the intro, one wrong answer: its feedback shows, the key does not."""
        await _wait_until_open(pilot)
        await pilot.press("enter", "4", "enter")
        await pilot.pause()

    assert snap_compare(build_app("first-check"), terminal_size=(80, 24), run_before=answer_wrong)
