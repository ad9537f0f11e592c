"""The ASCII theme: under LANG=C or --ascii, every character on every screen is ASCII."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.conftest import running, screen_text, shown, until
from tui_course import cli
from tui_course.runtime.terminal import ASCII_ENV
from tui_course.ui.app import CourseApp

SCREENS = [
    ("attend", ("tab",)),  # a focused live figure: borders, bars, scrollbar
    ("attend", ("pagedown",)),  # a Markdown table
    ("word-by-word", ("f1",)),  # help
    ("word-by-word", ("o",)),  # the outline over the lesson
    ("first-check", ("2", "enter")),  # a quiz verdict
    ("training-lab", ()),  # inputs, buttons, a check box, a select
    ("pe-lab", ()),
]


def not_ascii(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.isascii()]


async def settled(pilot: Pilot[None], changed_from: str | None) -> None:
    """The keys have had their effect (the screen differs from `changed_from`, when given)
    and the screen is the same on two frames running."""
    last = None
    for _ in range(500):
        await pilot.pause(0.01)
        text = screen_text(pilot.app)
        if text == last and text != changed_from:
            return
        last = text


@pytest.mark.parametrize(("item_id", "keys"), SCREENS)
@pytest.mark.parametrize("size", [(40, 12), (80, 24), (120, 30)])
async def test_c_locale_draws_only_ascii(
    build_app: Callable[..., CourseApp],
    monkeypatch: pytest.MonkeyPatch,
    item_id: str,
    keys: tuple[str, ...],
    size: tuple[int, int],
) -> None:
    monkeypatch.setenv("LANG", "C")
    app = build_app(item_id)
    async with running(app, size=size) as pilot:
        before = await shown(pilot)
        await pilot.press(*keys)
        await settled(pilot, changed_from=before if keys else None)
        assert not_ascii(await shown(pilot)) == []


async def test_ascii_flag_wins_over_a_utf8_locale_and_unicode_comes_back_after(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ASCII_ENV, "1")  # what `attn-tui --ascii` sets
    app = build_app("attend")
    async with running(app) as pilot:
        await pilot.press("tab")
        text = await shown(pilot)
        assert not_ascii(text) == [] and "#= live: attention" in text  # focused: '#='
        await pilot.press("shift+tab")  # the lesson: the figure's frame is plain again
        assert "+- live: attention" in await shown(pilot)
    monkeypatch.delenv(ASCII_ENV)
    app = build_app("attend")
    async with running(app) as pilot:
        await pilot.press("tab")
        assert "╔═ live: attention" in await shown(pilot)  # the glyph tables were put back


def test_ascii_flag_reaches_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[str | None] = []

    def fake_run_app(content: Path, data: Path, open_id: str | None, *modes: bool) -> int:
        import os

        seen.append(os.environ.get(ASCII_ENV))
        return 0

    monkeypatch.setenv(ASCII_ENV, "0")  # so the flag's setting is undone after the test
    monkeypatch.setattr(cli, "start_course", fake_run_app)
    assert cli.main(["--ascii", "--data-dir", str(tmp_path)]) == 0
    assert seen == ["1"]


def outline_rows(app: CourseApp, text: str) -> list[str]:
    """The outline's rows as drawn (its own columns of the screen, scrollbar left off)."""
    from tui_course.ui.widgets.outline import Outline

    region = app.query_one(Outline).region
    lines = text.splitlines()[region.y : region.bottom]
    return [line[region.x : region.x + region.width - 2] for line in lines]


@pytest.mark.parametrize(
    ("size", "open_outline"), [((120, 30), ()), ((80, 24), ("o",)), ((40, 12), ("o",))]
)
async def test_the_highlighted_outline_row_is_marked_without_colour(
    build_app: Callable[..., CourseApp],
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    open_outline: tuple[str, ...],
) -> None:
    from tui_course.ui.widgets.outline import Outline

    monkeypatch.setenv("LANG", "C")
    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app("word-by-word")
    async with running(app, size=size) as pilot:
        assert app.no_color
        await pilot.press(*open_outline)
        outline = app.query_one(Outline)
        outline.focus()
        for keys, expected in (((), 0), (("j", "j"), 2), (("down",), 3), (("k",), 2)):
            await pilot.press(*keys)
            assert outline.highlighted == expected
            rows = outline_rows(app, await shown(pilot))
            marked = [row for row in rows if row.startswith(">")]
            label = str(outline.get_option_at_index(expected).prompt)
            assert [row.rstrip() for row in marked] == [">" + label], rows
            assert all(row.startswith(" ") or not row for row in rows if row not in marked)
        if size == (120, 30):  # the outline stays beside the lesson: focus moves on
            await pilot.press("tab")
            assert not outline.has_focus
            rows = outline_rows(app, await shown(pilot))
            assert [row.rstrip() for row in rows if row.startswith(">")] == [">" + label]


async def test_the_outline_marker_is_a_triangle_in_a_utf8_locale(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    app = build_app("word-by-word")
    async with running(app, size=(120, 30)) as pilot:
        rows = outline_rows(app, await shown(pilot))
        assert [row[:11] for row in rows if not row.startswith(" ")] == [
            f"\u25b8[ ]  1 {app.items[0].title}"[:11]
        ]


async def test_a_loading_figure_says_so_in_ascii(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_course.ui.widgets.lesson_view import LessonView

    monkeypatch.setenv("LANG", "C")
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        app.query_one(LessonView).loading = True  # what the real-model lab shows while it works
        await until(pilot, lambda: "Loading..." in screen_text(app))
        text = await shown(pilot)
        assert "Loading..." in text and not_ascii(text) == []
