"""Idle means idle: once a screen has settled, nothing is drawn until something changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.ui.conftest import frames_while_idle, running
from tui_course.ui.app import CourseApp


@pytest.mark.parametrize(
    ("item_id", "keys"),
    [
        ("word-by-word", ()),
        ("attend", ("tab",)),
        ("first-check", ()),
        ("by-hand", ()),  # a number box has focus
        ("attention-lab", ()),  # the sentence box has focus
        ("pe-lab", ()),
        ("training-lab", ()),
        ("word-by-word", ("o",)),
        ("word-by-word", ("f1",)),
    ],
)
async def test_a_settled_screen_draws_nothing(
    build_app: Callable[..., CourseApp], item_id: str, keys: tuple[str, ...]
) -> None:
    app = build_app(item_id)
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press(*keys)
        frames = await frames_while_idle(pilot)  # after 0.8 s: a blink timer would have fired
        assert frames == 0, f"{frames} frames drawn while idle on {item_id}"
