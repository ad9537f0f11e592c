"""Pastes past a box's limit are refused in words, and the code stays as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from tests.ui.conftest import running, screen_text, until
from tests.ui.test_code_exercise import COURSE, open_exercise
from tui_course.ui.app import CourseApp
from tui_course.ui.paste_cap import PASTE_CHARS


async def paste(pilot: Pilot[Any], text: str) -> None:
    """As the terminal delivers a bracketed paste: to the app, which hands it on."""
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


@pytest.mark.parametrize(
    ("size", "said"),
    [
        (30 * 1024, "That paste (30 KB) would make the code over 20 KB."),
        # what the terminal reader passes on of a larger paste (tui_course/ui/paste_cap.py)
        (PASTE_CHARS, "That paste (over 64 KB) would make the code over 20 KB."),
    ],
)
async def test_a_paste_over_the_code_limit_is_refused_and_the_code_kept(
    build_app: Callable[..., CourseApp], size: int, said: str
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(100, 30)) as pilot:
        view = await open_exercise(pilot)
        before = view.editor.text
        await paste(pilot, "x" * size)
        assert await until(pilot, lambda: said in screen_text(app))
        assert view.editor.text == before


async def test_a_paste_within_the_limit_goes_into_the_code(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(100, 30)) as pilot:
        view = await open_exercise(pilot)
        await paste(pilot, "# pasted line\n")
        assert await until(pilot, lambda: "# pasted line" in view.editor.text)


@pytest.mark.parametrize("pasted", ["X = 1", "def f(x):\n    return x\n"])
async def test_a_paste_over_a_selection_replaces_it_once(
    build_app: Callable[..., CourseApp], pasted: str
) -> None:
    """F7 (select all) then a bracketed paste leaves the pasted text once: the editor's own
    handler once called TextArea's too, and Textual calls that itself, so every paste went
    in twice (and the doubled code was what was checked and submitted)."""
    app = build_app("code", content=COURSE)
    async with running(app, size=(100, 30)) as pilot:
        view = await open_exercise(pilot)
        assert view.editor.text.strip()  # the starter code, about to be replaced
        await pilot.press("f7")
        assert await until(pilot, lambda: view.editor.selected_text == view.editor.text)
        await paste(pilot, pasted)
        assert await until(pilot, lambda: view.editor.text != "" and pasted in view.editor.text)
        await pilot.pause()
        assert view.editor.text == pasted
        assert view.editor.cursor_location == view.editor.document.end
