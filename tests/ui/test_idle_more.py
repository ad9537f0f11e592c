"""Idle stays idle after the things students do: resize, type, train, read the real model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Input

from tests.ui.conftest import frames_while_idle, running, until
from tests.ui.test_real_model_lab import (  # noqa: F401 (fixtures)
    needs_real,
    no_hub_cache,
    settled,
    tiny_weights,
)
from tests.ui.test_training_panel import wait_for, with_fake_child
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.real_model_view import RealModelView
from tui_course.ui.widgets.training_panel import TrainingPanel


@pytest.mark.parametrize("item_id", ["attend", "attention-lab", "training-lab"])
async def test_idle_after_resizing(build_app: Callable[..., CourseApp], item_id: str) -> None:
    app = build_app(item_id)
    async with running(app, size=(200, 60)) as pilot:
        for size in ((80, 24), (40, 12), (200, 60), (80, 24)):
            await pilot.resize_terminal(*size)

            def resized(wanted: tuple[int, int] = size) -> bool:
                return tuple(app.screen.size) == wanted

            await until(pilot, resized)
        assert await frames_while_idle(pilot) == 0


async def test_idle_after_typing_in_the_attention_lab(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app, size=(80, 24)) as pilot:
        box = app.query(Input).first()
        box.focus()
        await pilot.press(*"the cat", "backspace", "t")
        assert box.value.endswith("the cat")
        assert await frames_while_idle(pilot) == 0
        await pilot.press("escape", "c")  # out of the box, then a switch
        assert await frames_while_idle(pilot) == 0


async def test_idle_after_a_training_run_finished(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    with_fake_child(app, "ok", tmp_path)
    async with running(app, size=(80, 24)) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: bool(panel.state.history) and not panel.running)
        # the "Training finished" notice goes after its timeout: wait for that, not a time
        await wait_for(pilot, lambda: not app.screen.query("Toast"), 30)
        assert await frames_while_idle(pilot) == 0


@needs_real
@pytest.mark.usefixtures("tiny_weights")
async def test_idle_in_the_real_model_lab_after_typing(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("real-model-lab")
    async with running(app, size=(80, 24)) as pilot:
        view = app.query_one(RealModelView)
        await settled(pilot, view)
        view.query_one(".real-sentence", Input).focus()
        await pilot.press("end", *" and ran", "backspace", "n")
        await settled(pilot, view)
        assert view.sentence.endswith(" and ran")
        assert await frames_while_idle(pilot) == 0
        await pilot.press("escape", "down", "right")
        assert await frames_while_idle(pilot) == 0
