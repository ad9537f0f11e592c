"""The ASCII theme: under LANG=C or --ascii, every character on every screen is ASCII."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ui.conftest import running, shown
from tui_course import cli
from tui_course.terminal import ASCII_ENV
from tui_course.ui.app import CourseApp

SCREENS = [
    ("self-attention", ("tab",)),  # a focused live figure: borders, bars, scrollbar
    ("self-attention", ("pagedown",)),  # a Markdown table
    ("why-transformers", ("f1",)),  # help
    ("why-transformers", ("o",)),  # the outline over the lesson
    ("checkpoint", ("2", "enter")),  # a quiz verdict
    ("training-lab", ()),  # inputs, buttons, a check box, a select
    ("pe-lab", ()),
]


def not_ascii(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.isascii()]


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
        await pilot.press(*keys)
        await pilot.pause(0.1)
        assert not_ascii(await shown(pilot)) == []


async def test_ascii_flag_wins_over_a_utf8_locale_and_unicode_comes_back_after(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ASCII_ENV, "1")  # what `attn-tui --ascii` sets
    app = build_app("self-attention")
    async with running(app) as pilot:
        await pilot.press("tab")
        text = await shown(pilot)
        assert not_ascii(text) == [] and "+- live: attention" in text
    monkeypatch.delenv(ASCII_ENV)
    app = build_app("self-attention")
    async with running(app) as pilot:
        await pilot.press("tab")
        assert "╔═ live: attention" in await shown(pilot)  # the glyph tables were put back


def test_ascii_flag_reaches_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[str | None] = []

    def fake_run_app(content: Path, data: Path, open_id: str | None) -> int:
        import os

        seen.append(os.environ.get(ASCII_ENV))
        return 0

    monkeypatch.setenv(ASCII_ENV, "0")  # so the flag's setting is undone after the test
    monkeypatch.setattr(cli, "run_app", fake_run_app)
    assert cli.main(["--ascii", "--data-dir", str(tmp_path)]) == 0
    assert seen == ["1"]
