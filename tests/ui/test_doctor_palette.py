"""Doctor from the command palette: a ForceCommand student has no shell to run it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.ui.conftest import palette_offers, running
from tui_course.ui.app import CourseApp
from tui_course.ui.screens.doctor import DoctorScreen


async def test_the_palette_runs_doctor_and_esc_closes_it(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app()
    async with running(app) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Doctor")
        assert await palette_offers(pilot, "Doctor")
        await pilot.press("enter")
        for _ in range(100):
            if isinstance(app.screen, DoctorScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, DoctorScreen)
        report = app.screen.report
        assert "data folder" in report and str(tmp_path / "data") in report
        assert report.rstrip().endswith("warning(s)")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, DoctorScreen)
