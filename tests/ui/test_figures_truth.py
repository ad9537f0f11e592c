"""Every figure kind, in every toggle state, prints what the maths says.

Each test drives a live view with its keys inside a bare Textual app, reads the
screen as a person would (plain text of the rendered frame) and compares every
printed number with an independent NumPy computation written out here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tests.ui.conftest import screen_text
from tui_course import specs
from tui_course.content.blocks.attention import AttentionParams
from tui_course.maths.embeddings import SETS, hashed_vector
from tui_course.maths.explore import AttentionSetup
from tui_course.realmodel import loading as realmodel
from tui_course.render.heatmap import KEY_LABEL_CAP
from tui_course.ui.widgets.attention_view import EMBEDDING_ORDER, AttentionView
from tui_course.ui.widgets.pe_view import PEView
from tui_course.views.pe import PEExplorer

Matrix = NDArray[np.float64]
TALL = (110, 400)  # tall enough that a whole figure is on screen at once


class FigureApp(App[None]):
    def __init__(self, figure: Any) -> None:
        super().__init__()
        self.figure = figure

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.figure


def reference_softmax(scores: Matrix) -> Matrix:
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights: Matrix = shifted / shifted.sum(axis=-1, keepdims=True)
    return weights


def reference_vectors(set_name: str, tokens: tuple[str, ...]) -> Matrix:
    if set_name == "hashed":
        return np.array([hashed_vector(token) for token in tokens])
    return np.array([SETS[set_name].vectors[token.casefold()] for token in tokens])


def reference_attention(
    view: AttentionView,
) -> tuple[list[Matrix], list[int], Matrix]:
    """(weights per head, head sizes, outputs) from the view's vectors and, with several
    heads, its random projections: the formulas written out once more."""
    result = view.result
    assert result is not None
    x = reference_vectors(result.embeddings_used, result.tokens)
    n = len(result.tokens)
    allowed = np.tril(np.ones((n, n), dtype=bool)) if view.setup.causal else np.ones((n, n), bool)
    if view.setup.heads == 1:
        heads = [(x, x, x)]
    else:
        p = result.projections
        assert p is not None
        size = -(-x.shape[1] // view.setup.heads)
        assert p.wq.shape == (x.shape[1], view.setup.heads * size)
        columns = [slice(h * size, (h + 1) * size) for h in range(view.setup.heads)]
        heads = [(x @ p.wq[:, c], x @ p.wk[:, c], x @ p.wv[:, c]) for c in columns]
    all_weights, sizes, blended = [], [], []
    for q, k, v in heads:
        scores = q @ k.T
        if view.setup.scale:
            scores = scores / np.sqrt(k.shape[1])
        weights = reference_softmax(np.where(allowed, scores, -np.inf))
        all_weights.append(weights)
        sizes.append(k.shape[1])
        blended.append(weights @ v)
    joined = np.concatenate(blended, axis=1)
    outputs = joined if view.setup.heads == 1 else joined @ result.projections.wo  # type: ignore[union-attr]
    return all_weights, sizes, outputs


def heatmap_blocks(screen: list[str], tokens: tuple[str, ...]) -> list[Matrix]:
    """Every heatmap on screen, as the percentages it prints (rows = queries). The screen
    is wide enough for whole words above the columns."""
    width = min(max(len(t) for t in tokens), KEY_LABEL_CAP)
    header = re.compile(r"\s+".join(re.escape(t) for t in tokens) + r"\s*$")
    blocks = []
    for index, line in enumerate(screen):
        if not header.search(line.rstrip()):
            continue
        rows = []
        for offset, token in enumerate(tokens, start=1):
            row = screen[index + offset]
            start = row.index(token[:width], max(row.find(">"), 0))
            numbers = re.findall(r"-?\d+", row[start + width :])
            rows.append([int(n) for n in numbers[: len(tokens)]])
        blocks.append(np.array(rows, dtype=np.float64))
    return blocks


def bars_for(screen: list[str], word: str, heads: int) -> list[list[float]]:
    """The 'Weights of WORD' lists, one per head, as the numbers printed."""
    found = []
    for index, line in enumerate(screen):
        if f"Weights of '{word}'" in line:
            values = []
            for follow in screen[index + 1 :]:
                match = re.search(r"\s(\d\.\d\d)(\s|$)", follow)
                if match is None:
                    break
                values.append(float(match.group(1)))
            found.append(values)
    assert len(found) == heads
    return found


def toggle_states() -> list[tuple[str, bool, bool, int]]:
    """Every (embeddings, scale, causal, heads) state, in the order the keys reach them."""
    return [
        (embeddings, scale, causal, heads)
        for embeddings in EMBEDDING_ORDER
        for scale in (True, False)
        for causal in (False, True)
        for heads in specs.ATTENTION_HEADS.choices
    ]


async def test_attention_figure_matches_the_maths_in_every_toggle_state() -> None:
    view = AttentionView(
        AttentionSetup(SETS["toy-train"].default_sentence),
        row=1,
        extras=AttentionParams("toy-train", output=True, loop_check=True),
    )
    app = FigureApp(view)
    seen = 0
    async with app.run_test(size=TALL) as pilot:
        view.focus()
        for embeddings in EMBEDDING_ORDER:
            for scale in (True, False):
                for causal in (False, True):
                    for heads in specs.ATTENTION_HEADS.choices:
                        await pilot.pause()
                        assert (view.setup.embeddings, view.setup.scale) == (embeddings, scale)
                        assert (view.setup.causal, view.setup.heads) == (causal, heads)
                        check_attention_screen(view, screen_text(app).splitlines())
                        seen += 1
                        await pilot.press("m")
                    await pilot.press("c")
                await pilot.press("s")
            await pilot.press("e")
    assert seen == len(toggle_states())


def check_attention_screen(view: AttentionView, screen: list[str]) -> None:
    result = view.result
    assert result is not None
    weights, sizes, outputs = reference_attention(view)
    state = f"{view.setup}"
    printed = heatmap_blocks(screen, result.tokens)
    assert len(printed) == view.setup.heads, state
    for head, (shown, expected) in enumerate(zip(printed, weights, strict=True)):
        assert np.array_equal(shown, np.round(expected * 100)), f"{state} head {head + 1}"
    text = "\n".join(screen)
    if view.setup.heads > 1:
        for head in range(view.setup.heads):
            how = f"scores / sqrt({sizes[head]})" if view.setup.scale else "scores not scaled"
            assert f"head {head + 1} of {view.setup.heads}: size {sizes[head]}, {how}" in text
    joined = " ".join(text.replace("│", " ").split())
    how = f"scores / sqrt({sizes[0]})" if view.setup.scale else "scores not scaled"
    if view.setup.heads > 1 and view.setup.scale:
        how += " in each head"
    assert how in joined, state
    assert f"d = {result.d}" in joined, state
    if view.setup.heads > 1:
        assert f"{view.setup.heads} heads of size {sizes[0]}" in joined, state
    assert ("causal mask" in joined) == view.setup.causal, state
    if view.setup.heads > 1 and result.d % view.setup.heads:
        assert f"{result.d} does not split into {view.setup.heads} equal slices" in joined
    word = result.tokens[view.row]
    for head, values in enumerate(bars_for(screen, word, view.setup.heads)):
        assert values == [round(float(w), 2) for w in weights[head][view.row]], state
    new = re.search(rf"New '{word}'[^=]*= \[([^\]]+)\]", joined)
    assert new is not None, state
    shown_output = [float(v) for v in new.group(1).split(",")]
    assert np.allclose(shown_output, outputs[view.row], atol=5e-4), state
    assert "versions" in joined and ": identical" in joined and "DIFFER" not in joined, state


async def test_typed_unknown_word_names_the_vectors_really_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # hashed vectors as the last resort: as if the real model were not installed
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))
    view = AttentionView(AttentionSetup("The train left"), row=0, editable=True)
    app = FigureApp(view)
    async with app.run_test(size=(100, 60)) as pilot:
        from textual.widgets import Input

        app.query_one(Input).value = "The train left the platform"
        await pilot.pause()
        joined = " ".join(screen_text(app).split())
        assert "e vectors hashed ('platform' is not in toy-train)" in joined
        assert "vectors: hashed" in joined
        assert view.result is not None and view.result.embeddings_used == "hashed"
        app.query_one(Input).value = "The train left the station"
        await pilot.pause()
        joined = " ".join(screen_text(app).split())
        assert "e vectors toy-train " in joined + " " and "not in toy-train" not in joined


def reference_pe(positions: int, dim: int, start: int) -> Matrix:
    table = np.zeros((positions, dim))
    for row in range(positions):
        for column in range(dim):
            angle = (start + row) / 10000 ** (2 * (column // 2) / dim)
            table[row, column] = np.sin(angle) if column % 2 == 0 else np.cos(angle)
    return table


def reference_similarity(table: Matrix) -> Matrix:
    norms = np.linalg.norm(table, axis=1)
    similarity = np.zeros((len(table), len(table)))
    for i in range(len(table)):
        for j in range(len(table)):
            if norms[i] and norms[j]:
                similarity[i, j] = table[i] @ table[j] / (norms[i] * norms[j])
    return similarity


def pe_screen_numbers(screen: list[str], first: str, rows: int) -> list[list[float]]:
    """The numbers of the `rows` non-blank lines after the line holding `first` (the view's
    CSS may leave a blank line under a title)."""
    index = next(i for i, line in enumerate(screen) if first in line)
    lines = [line for line in screen[index + 1 :] if line.strip()][:rows]
    return [[float(n) for n in re.findall(r"-?\d+\.\d+", line)] for line in lines]


# (positions, dim, start, keys pressed after mounting)
PE_STATES = [
    (4, 2, 0, ()),
    (1, 1, 0, ()),
    (5, 1, 3, ("right_square_bracket",)),  # dim 1 -> 3: odd d ends on a sine column
    (6, 8, 100, ("minus", "minus", "left_square_bracket")),
    (8, 5, 7, ("plus",)),
]


@pytest.mark.parametrize(("positions", "dim", "start", "keys"), PE_STATES)
async def test_pe_figure_matches_the_maths(
    positions: int, dim: int, start: int, keys: tuple[str, ...]
) -> None:
    view = PEView(positions=positions, dim=dim, start=start, show_shaded=True, show_similarity=True)
    app = FigureApp(view)
    async with app.run_test(size=TALL) as pilot:
        view.focus()
        await pilot.press(*keys)
        await pilot.pause()
        positions, dim = view.state.positions, view.state.dim
        screen = screen_text(app).splitlines()
        table = reference_pe(positions, dim, start)
        joined = " ".join(" ".join(screen).split())
        assert f"positions {start}-{start + positions - 1} ({positions}," in joined
        shown = pe_screen_numbers(screen, "pos ", positions)
        header = next(i for i, line in enumerate(screen) if "pos " in line)
        labels = [int(line.split()[0]) for line in screen[header + 1 : header + 1 + positions]]
        assert labels == list(range(start, start + positions))
        assert np.array_equal(np.array(shown), np.round(table, 3))
        similarity = reference_similarity(table)
        title = next(i for i, line in enumerate(screen) if "How alike is position" in line)
        assert f"How alike is position {start} " in screen[title]
        cells = pe_screen_numbers(screen, "How alike", positions + 1)[1:]
        rows = min(positions, 12)
        assert np.array_equal(
            np.array(cells[:rows])[:, : len(cells[0])],
            np.round(similarity[:rows, : len(cells[0])], 2),
        )
        assert "shade order -1 '=' '-' '~' ',' ' ' (0) '.' ':' '+' '#' +1" in joined
        shaded_title = next(i for i, line in enumerate(screen) if "one character each" in line)
        width = max(3, len(str(start + positions - 1)))
        for offset, values in enumerate(table):
            levels = [4 + round(float(np.clip(v, -1, 1)) * 4) for v in values]
            expected = f"{start + offset:>{width}}  " + "".join("=-~, .:+#"[i] for i in levels)
            assert screen[shaded_title + 1 + offset].startswith(expected), (offset, expected)


async def test_pe_similarity_keeps_negative_values() -> None:
    view = PEView(positions=4, dim=2, show_table=False, show_similarity=True)
    app = FigureApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = screen_text(app).splitlines()
        row = next(line for line in screen if line.strip().startswith(">0"))
        assert row.split()[-2:] == ["~~-0.42", "==-0.99"]
        assert round(np.cos(2.0), 2) == -0.42


async def test_pe_view_stops_at_the_spec_limits() -> None:
    view = PEView(positions=specs.POSITIONS.high, dim=specs.DIM.high)
    app = FigureApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        view.focus()
        await pilot.press("plus", "right_square_bracket")
        assert (view.state.positions, view.state.dim) == (specs.POSITIONS.high, specs.DIM.high)
        view.state = PEExplorer.of(1, 1)
        await pilot.press("minus", "left_square_bracket")
        assert (view.state.positions, view.state.dim) == (1, 1)


async def test_lesson_pe_block_start_reaches_the_live_view(tmp_path: Path) -> None:
    from tui_course.ui.app import Settings, make_app

    (tmp_path / "course" / "lessons").mkdir(parents=True)
    (tmp_path / "course" / "quizzes").mkdir()
    (tmp_path / "course" / "lessons" / "pe.md").write_text(
        '+++\nid = "pe"\ntitle = "PE"\norder = 1\n+++\n\nText.\n\n'
        "```pe-table\npositions = 3\ndim = 2\nstart = 100\nsimilarity = true\n```\n",
        encoding="utf-8",
    )
    app = make_app(Settings(tmp_path / "course", tmp_path / "data", "pe"))
    async with app.run_test(size=(200, 60)) as pilot:
        for _ in range(100):
            if app.query(PEView):
                break
            await pilot.pause(0.02)
        await pilot.pause()
        view = app.query_one(PEView)
        assert view.state.start == 100
        screen = screen_text(app).splitlines()
        shown = pe_screen_numbers(screen, "pos ", 3)
        assert np.array_equal(np.array(shown), np.round(reference_pe(3, 2, 100), 3))
        assert "How alike is position 100 " in "\n".join(screen)
