"""The syllabus figures, and the properties that make attention what it is."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tui_course.content.blocks import EMBEDDING_SETS
from tui_course.maths import (
    attention_loop,
    causal_mask,
    merge_heads,
    multi_head_attention,
    position_similarity,
    positional_encoding,
    scaled_dot_product_attention,
    softmax,
    split_heads,
    transformer_classifier_parameters,
)
from tui_course.maths.embeddings import SETS, embed, hashed_vector, tokenize


def test_figure_a_context_vector_of_sat() -> None:
    x = embed("toy-cat-sat", ["the", "cat", "sat", "down"])
    output, _ = scaled_dot_product_attention(x, x, x)
    assert [round(v, 3) for v in output[2]] == [0.419, 0.523, 0.147]


def test_figure_b_weights_of_it() -> None:
    x = embed("toy-it", ["the", "cat", "sat", "it"])
    _, weights = scaled_dot_product_attention(x, x, x)
    assert [round(v, 2) for v in weights[3]] == [0.17, 0.33, 0.17, 0.33]
    assert weights[3].sum() == pytest.approx(1.0)


def test_figure_c_positional_encoding() -> None:
    pe = positional_encoding(2, 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert [round(v, 3) for v in pe[1]] == [0.841, 0.540, 0.010, 1.000]


def test_lab_model_has_14049_parameters() -> None:
    layers = transformer_classifier_parameters()
    assert sum(count for _, count in layers) == 14_049
    assert dict(layers)["MultiHeadAttention(4 heads, key_dim 16)"] == 8_416


def test_toy_train_relations_really_score_higher() -> None:
    words = tokenize("The train left the station on time")
    _, weights = scaled_dot_product_attention(*(embed("toy-train", words),) * 3)
    row = {w: weights[1][i] for i, w in enumerate(words)}
    others = [v for w, v in row.items() if w not in ("train", "station")]
    assert row["station"] > max(others)
    on, time = words.index("on"), words.index("time")
    assert weights[on][time] == max(weights[on][j] for j in range(len(words)) if j != on)


def test_embedding_set_names_match_content_schema() -> None:
    assert set(SETS) == set(EMBEDDING_SETS)


def test_hashed_vectors_are_deterministic_unit_vectors() -> None:
    assert np.array_equal(hashed_vector("Station"), hashed_vector("station"))
    assert np.linalg.norm(hashed_vector("station")) == pytest.approx(1.0)
    assert not np.array_equal(hashed_vector("train"), hashed_vector("time"))


def test_softmax_is_stable_and_handles_masks() -> None:
    assert softmax([1000.0, 1000.0]).tolist() == [0.5, 0.5]
    assert softmax([-np.inf, 0.0]).tolist() == [0.0, 1.0]
    assert softmax([-np.inf, -np.inf]).tolist() == [0.0, 0.0]


def test_odd_model_dimension_ends_on_a_sine() -> None:
    pe = positional_encoding(3, 5)
    assert pe.shape == (3, 5)
    assert pe[2, 4] == pytest.approx(np.sin(2 / 10000 ** (4 / 5)))


def test_position_similarity_neighbours_are_most_alike() -> None:
    similarity = position_similarity(positional_encoding(8, 64))
    assert np.allclose(np.diag(similarity), 1.0)
    assert np.allclose(similarity, similarity.T)
    assert similarity[0, 1] > similarity[0, 2] > similarity[0, 3] > similarity[0, 4]
    for i in range(8):
        others = [j for j in range(8) if j != i]
        assert abs(max(others, key=lambda j: similarity[i, j]) - i) == 1


finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def sequences(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 6))
    d = draw(st.integers(1, 5))
    return draw(arrays(np.float64, (n, d), elements=finite))


@settings(max_examples=60, deadline=None)
@given(sequences(), st.booleans())
def test_rows_sum_to_one_and_loop_matches_vectorised(x: np.ndarray, scale: bool) -> None:
    output, weights = scaled_dot_product_attention(x, x, x, scale=scale)
    assert np.allclose(weights.sum(axis=-1), 1.0)
    loop_output, loop_weights = attention_loop(x, x, x, scale=scale)
    assert np.allclose(output, loop_output) and np.allclose(weights, loop_weights)


@settings(max_examples=60, deadline=None)
@given(sequences(), st.randoms(use_true_random=False))
def test_permuting_tokens_permutes_outputs(x: np.ndarray, random: object) -> None:
    order = list(range(len(x)))
    random.shuffle(order)  # type: ignore[attr-defined]
    output, _ = scaled_dot_product_attention(x, x, x)
    shuffled, _ = scaled_dot_product_attention(x[order], x[order], x[order])
    assert np.allclose(shuffled, output[order])


@settings(max_examples=40, deadline=None)
@given(sequences())
def test_causal_mask_zeroes_the_future(x: np.ndarray) -> None:
    n = len(x)
    _, weights = scaled_dot_product_attention(x, x, x, mask=causal_mask(n))
    assert np.all(weights[np.triu_indices(n, k=1)] == 0.0)
    assert np.allclose(weights.sum(axis=-1), 1.0)


def test_padding_mask_broadcasts_over_queries() -> None:
    x = np.arange(12, dtype=float).reshape(4, 3) / 10
    _, weights = scaled_dot_product_attention(x, x, x, mask=np.array([True, True, True, False]))
    assert np.all(weights[:, 3] == 0.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5))
def test_split_and_merge_heads_round_trip(heads: int, d_head: int, seq: int) -> None:
    x = np.arange(seq * heads * d_head, dtype=float).reshape(seq, heads * d_head)
    split = split_heads(x, heads)
    assert split.shape == (heads, seq, d_head)
    assert np.array_equal(split[-1, 0], x[0, (heads - 1) * d_head :])
    assert np.array_equal(merge_heads(split), x)


def test_split_heads_rejects_uneven_split() -> None:
    with pytest.raises(ValueError, match="does not split into 3 heads"):
        split_heads(np.zeros((2, 8)), 3)


def test_multi_head_attention_shapes_and_determinism() -> None:
    x = embed("toy-train", tokenize("The train left the station on time"))
    out1, weights1 = multi_head_attention(x[:, :4], 2, np.random.default_rng(0))
    out2, _ = multi_head_attention(x[:, :4], 2, np.random.default_rng(0))
    assert out1.shape == (7, 4) and weights1.shape == (2, 7, 7)
    assert np.array_equal(out1, out2)
    assert np.allclose(weights1.sum(axis=-1), 1.0)


def test_typed_emoji_are_words_and_punctuation_is_not() -> None:
    assert tokenize("the cat 🐈 sat.") == ["the", "cat", "🐈", "sat"]
    assert tokenize("I ❤️ cats, don't you?") == ["I", "❤️", "cats", "don't", "you"]
    assert tokenize("👩‍💻 codes 👍🏽") == ["👩‍💻", "codes", "👍🏽"]  # one emoji, joined or toned
    assert tokenize("a + b = c; (d)") == ["a", "b", "c", "d"]


def test_words_keep_their_combining_marks() -> None:
    """A mark is not a regex word character: without gluing, Hindi words fell apart and a
    decomposed accent (typed by some keyboards) was dropped, giving the word other vectors."""
    assert tokenize("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]
    decomposed, composed = "cafe\u0301 ok", "caf\u00e9 ok"
    assert tokenize(decomposed) == tokenize(composed) == ["caf\u00e9", "ok"]
    assert tokenize("x\u0301\u0301y don't 😀👍🏽 a\u200bb") == [
        "x\u0301\u0301y",
        "don't",
        "😀👍🏽",
        "a",
        "b",
    ]
    assert tokenize("नमस्ते😀, ok.") == ["नमस्ते", "😀", "ok"]
    # a zero-width non-joiner inside a Persian word keeps it one word; a trailing one goes
    assert tokenize("می\u200cخواهم بروم x\u200c y") == ["می\u200cخواهم", "بروم", "x", "y"]
