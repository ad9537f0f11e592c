from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets._markdown import MarkdownFence

from tests.conftest import FIXTURES
from tui_course.content.course import load_course
from tui_course.content.models import Course, Lab, Lesson, Quiz
from tui_course.ui.app import CourseApp, Settings, make_app
from tui_course.ui.widgets.heatmap_view import HeatmapView

# The course the UI tests run on: small, written for the tests, with every block and
# question kind (tests/ui/test_fixture_course.py keeps it so). The shipped course has one
# smoke test of its own (test_shipped_course.py), so editing a lesson breaks no UI test.
UI_COURSE = FIXTURES / "ui_course"


@cache
def ui_course() -> Course:
    """The fixture course as the app loads it, for tests to read titles and prompts from."""
    return load_course(UI_COURSE)


def lesson(item_id: str) -> Lesson:
    item = ui_course().find(item_id)
    assert isinstance(item, Lesson), item_id
    return item


def quiz(item_id: str) -> Quiz:
    item = ui_course().find(item_id)
    assert isinstance(item, Quiz), item_id
    return item


def lab(item_id: str) -> Lab:
    item = ui_course().find(item_id)
    assert isinstance(item, Lab), item_id
    return item


def screen_text(app: App[Any]) -> str:
    """What a person would read on the screen right now, without colours."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


@asynccontextmanager
async def running(
    app: CourseApp, size: tuple[int, int] = (80, 24), notifications: bool = False
) -> AsyncIterator[Pilot[None]]:
    """Run the app until its first lesson or quiz is open, focus given (`app.started`; a
    lesson opens after the first frame, a quiz before it). Not until `app.current` is set:
    a quiz is current before its view has mounted and taken the keys, and a loaded run sent
    its keys to no one then. With `notifications`, Textual's own toasts are drawn too; the
    app's notices are lines above the footer either way (read them with `notices`)."""
    async with app.run_test(size=size, notifications=notifications) as pilot:
        await until(pilot, lambda: app.started or not app.items, rounds=2000)
        await pilot.pause()
        yield pilot


async def until(pilot: Pilot[Any], condition: Callable[[], bool], rounds: int = 500) -> bool:
    """Let the app process messages until `condition` holds: a class change reaches a
    widget's styles a refresh later, so asserting right after a key press is a race. The
    round cap only stops a broken test from hanging; it is not a time limit."""
    for _ in range(rounds):
        if condition():
            return True
        await pilot.pause(0.01)
    return condition()


async def opened(pilot: Pilot[Any], item_id: str) -> bool:
    """Whether the item becomes the open one: keys are taken in order, but an open still
    running (a quiz's answer keys are computed in a thread, a view mounts) holds the keys
    after it, and a key press returns to the test before they are done on a busy machine."""
    app = pilot.app
    return await until(pilot, lambda: getattr(getattr(app, "current", None), "id", None) == item_id)


def laid_out(view: Widget) -> bool:
    """Every block of the open lesson has been given its size (Markdown lays out over
    several refreshes)."""
    return bool(view.children) and all(
        isinstance(block, Widget) and block.virtual_region.height > 0 for block in view.children
    )


def figures_cut(view: Widget) -> list[str]:
    """What in `view` does not fit its width: a figure or code block that scrolls sideways
    (a text box may), a heatmap showing only some of its columns."""
    cut: list[str] = []
    for node in view.query("*"):
        scrolls = isinstance(node, ScrollableContainer | MarkdownFence)
        if scrolls and not isinstance(node, Input) and node.max_scroll_x > 0:
            cut.append(f"{type(node).__name__} {node.max_scroll_x} too wide")
        if isinstance(node, HeatmapView) and "columns" in node.plain:
            cut.append("heatmap shows only some columns")
    return cut


async def palette_offers(pilot: Pilot[Any], text: str) -> bool:
    """The command palette's search has run and its highlighted entry mentions `text`
    (Enter before that runs whatever was highlighted, or nothing)."""
    from textual.command import CommandList

    def found() -> bool:
        hits = pilot.app.screen.query(CommandList)
        if not hits or hits.first().highlighted is None:
            return False
        first = hits.first()
        return text in str(first.get_option_at_index(first.highlighted or 0).prompt)

    return await until(pilot, found)


async def shown(pilot: Pilot[Any]) -> str:
    """The screen after pending refreshes have been drawn: a key handler that remounts
    widgets (a quiz summary) can otherwise leave the previous frame in place."""
    await pilot.pause()
    return screen_text(pilot.app)


async def shown_with(pilot: Pilot[Any], *phrases: str, rounds: int = 500) -> str:
    """The screen once every one of `phrases` is on it: a view draws its new state a call
    later, and the layout reaches the screen a refresh after that, later still on a busy
    machine; two views (the quiz's verdict line, the exercise's feedback) draw apart. The
    round cap only stops a broken test from hanging; then the caller's assert fails."""
    for _ in range(rounds):
        screen = screen_text(pilot.app)
        if all(phrase in screen for phrase in phrases):
            return screen
        await pilot.pause(0.01)
    return screen_text(pilot.app)


async def notices(pilot: Pilot[Any]) -> list[str]:
    """The notices on screen now: the lines above the footer (CourseApp.notify puts them
    there, as plain text, instead of toasts that would cover a quiz's feedback)."""
    from tui_course.ui.widgets.notices import NoticeLines

    await pilot.pause()
    return [line for box in pilot.app.screen.query(NoticeLines) for line in box.lines]


def widget_text(app: App[Any], selector: str) -> str:
    """The plain text a Static shows, before wrapping (for long sentences)."""
    from textual.widgets import Static

    return str(app.query_one(selector, Static).render())


@pytest.fixture
def build_app(tmp_path: Path) -> Callable[..., CourseApp]:
    def build(
        open_id: str | None = None,
        content: Path = UI_COURSE,
        data: Path | None = None,
        shuffle: bool = False,  # file order unless a test is about shuffling
    ) -> CourseApp:
        return make_app(Settings(content, data or tmp_path / "data", open_id, shuffle))

    return build


async def frames_while_idle(pilot: Pilot[None], seconds: float = 1.5) -> int:
    """Frames drawn during `seconds` once the screen has had time to settle."""
    app = pilot.app
    await pilot.pause(0.8)
    frames: list[Any] = []
    draw = app._display

    def counting(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append(renderable)
        draw(screen, renderable)

    app._display = counting  # type: ignore[method-assign]
    await pilot.pause(seconds)
    app._display = draw  # type: ignore[method-assign]
    return len(frames)
