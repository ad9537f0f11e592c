"""A long session does not keep what it removed: students leave attn-tui open for hours."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widget import Widget

from tests.ui.conftest import running
from tui_course.ui.app import CourseApp


def removed_widgets() -> dict[str, int]:
    """Widgets still in memory though no longer on any screen, by class name."""
    gc.collect()
    counts: dict[str, int] = {}
    for thing in gc.get_objects():
        if isinstance(thing, Widget) and not thing.is_attached:
            name = type(thing).__name__
            counts[name] = counts.get(name, 0) + 1
    return counts


def grown_since(before: dict[str, int]) -> dict[str, int]:
    """How many more removed widgets of each class are in memory than `before` had."""
    now = removed_widgets()
    return {
        name: now[name] - before.get(name, 0) for name in now if now[name] > before.get(name, 0)
    }


async def test_focus_changes_and_help_leave_no_removed_widgets_behind(
    build_app: Callable[..., CourseApp],
) -> None:
    """Every footer redraw (a focus change, help, the outline) used to keep the old keys:
    each bound the footer's `compact` and Textual drops such a watcher only when the value
    changes, which it never does. (A lesson without a text box: see the test below.)"""
    app = build_app("heads")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("f1", "escape", "o", "o")
        await pilot.pause()
        before = removed_widgets()
        for _ in range(6):
            await pilot.press("f1")
            await pilot.pause()
            await pilot.press("escape", "o")
            await pilot.pause()
            await pilot.press("o", "tab")
            await pilot.pause()
        await app.open_item("first-check")
        await pilot.pause()
        await app.open_item("heads")
        await pilot.pause()
        assert grown_since(before) == {}


async def test_a_lesson_with_a_sentence_box_leaves_no_removed_widgets_behind(
    build_app: Callable[..., CourseApp],
) -> None:
    """Textual's Input never leaves its screen's text-selection signal, whose table kept
    every removed box alive: the app's boxes (TextBox) leave it when removed."""
    app = build_app("attend")  # its first figure has a sentence box
    async with running(app, size=(80, 24)) as pilot:
        before = removed_widgets()
        for _ in range(2):
            await app.open_item("first-check")
            await pilot.pause()
            await app.open_item("attend")
            await pilot.pause()
        assert grown_since(before) == {}


async def test_a_sentence_box_runs_one_cursor_blink_timer(
    build_app: Callable[..., CourseApp],
) -> None:
    """TextBox's mount handler once called Input's, which Textual calls as well: each box
    started two blink timers (the second toggling against the first) and kept both."""
    from tui_course.ui.widgets.text_box import TextBox

    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.pause()
        boxes = list(app.query(TextBox))
        assert boxes
        for box in boxes:
            blinking = [timer for timer in box._timers if timer._interval == 0.5]
            assert len(blinking) == 1, box


@pytest.mark.parametrize("open_id", [None, "review", "first-check", "training-lab", "empty"])
async def test_cyclic_gc_comes_back_after_the_first_frame_on_every_start(
    build_app: Callable[..., CourseApp], tmp_path: Path, open_id: str | None
) -> None:
    """launch.run_app pauses cyclic GC until the first frame; on_mount's early returns (the
    review queue, a course with nothing in it) must not skip turning it back on."""
    if open_id == "empty":
        (tmp_path / "empty" / "lessons").mkdir(parents=True)
        app = build_app(None, content=tmp_path / "empty")
    else:
        app = build_app(open_id)
    gc.disable()
    try:
        async with running(app, size=(80, 24)) as pilot:
            await pilot.pause()
            assert gc.isenabled()
    finally:
        gc.enable()


class _GcWatch:
    """The gc module as the app sees it, noting how many objects were frozen each time
    cyclic GC is turned back on."""

    def __init__(self) -> None:
        self.frozen_at_enable: list[int] = []

    def __getattr__(self, name: str) -> object:
        return getattr(gc, name)

    def enable(self) -> None:
        self.frozen_at_enable.append(gc.get_freeze_count())
        gc.enable()


@pytest.mark.parametrize("open_id", [None, "first-check"])
async def test_start_up_objects_are_frozen_before_cyclic_gc_comes_back(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch, open_id: str | None
) -> None:
    """Turned on with start-up's objects still in the youngest generation, the first
    collections walk all of them (a returning student's quiz opened before the first
    frame: 2.5-4.5% of the session's instructions, bench/start_instructions.py). Frozen
    first, they walk only what came after."""
    import tui_course.ui.startup_gc as startup_gc

    watch = _GcWatch()
    monkeypatch.setattr(startup_gc, "gc", watch)
    app = build_app(open_id)
    gc.disable()
    try:
        async with running(app, size=(80, 24)) as pilot:
            await pilot.pause()
            assert watch.frozen_at_enable
            assert watch.frozen_at_enable[0] > 1000
    finally:
        gc.enable()
        gc.unfreeze()
