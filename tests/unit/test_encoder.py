"""The NumPy BERT encoder: shapes, softmax rows, the padding mask, and a slow reference."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from tests.tiny_bert import CONFIG, random_weights
from tui_course.maths.encoder import (
    EncoderConfig,
    EncoderWeights,
    LayerWeights,
    Product,
    encode,
    gelu,
    lay_out_for_products,
    lay_out_product,
    layer_norm,
    masked_softmax,
    mean_pooled,
    merge_pieces,
    products_of,
    rank_heads,
    strongest_links,
)


def reference_attentions(
    config: EncoderConfig, weights: EncoderWeights, ids: list[int]
) -> NDArray[np.float64]:
    """The same model written out slowly in float64, one head and one query at a time."""

    def norm(x: NDArray[np.float64], gain: NDArray[np.float32], bias: NDArray[np.float32]) -> Any:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + config.layer_norm_eps) * gain + bias

    f64 = np.float64
    x = (
        weights.word_embeddings[ids].astype(f64)
        + weights.position_embeddings[: len(ids)]
        + weights.token_type_embeddings[0]
    )
    x = norm(x, weights.embedding_norm_weight, weights.embedding_norm_bias)
    size = config.head_size
    found = np.zeros((config.num_layers, config.num_heads, len(ids), len(ids)))
    for index, layer in enumerate(weights.layers):
        q = x @ layer.query_weight.T.astype(f64) + layer.query_bias
        k = x @ layer.key_weight.T.astype(f64) + layer.key_bias
        v = x @ layer.value_weight.T.astype(f64) + layer.value_bias
        context = np.zeros_like(x)
        for head in range(config.num_heads):
            part = slice(head * size, (head + 1) * size)
            for row in range(len(ids)):
                scores = [q[row, part] @ k[col, part] / math.sqrt(size) for col in range(len(ids))]
                top = max(scores)
                exps = [math.exp(s - top) for s in scores]
                found[index, head, row] = [e / sum(exps) for e in exps]
            context[:, part] = found[index, head] @ v[:, part]
        attended = context @ layer.attention_output_weight.T.astype(f64)
        x = norm(
            attended + layer.attention_output_bias + x,
            layer.attention_norm_weight,
            layer.attention_norm_bias,
        )
        inner = x @ layer.intermediate_weight.T.astype(f64) + layer.intermediate_bias
        inner = inner * 0.5 * (1.0 + np.vectorize(math.erf)(inner / math.sqrt(2.0)))
        out = inner @ layer.output_weight.T.astype(f64) + layer.output_bias
        x = norm(out + x, layer.output_norm_weight, layer.output_norm_bias)
    return found


def test_shapes_dtype_and_rows_sum_to_one() -> None:
    weights = random_weights(CONFIG)
    output = encode(CONFIG, weights, np.array([1, 5, 7, 2, 3]))
    assert output.attentions.shape == (2, 2, 5, 5)
    assert output.hidden_states.shape == (3, 5, 8)
    assert output.attentions.dtype == np.float32
    assert output.hidden_states.dtype == np.float32
    np.testing.assert_allclose(output.attentions.sum(axis=-1), 1.0, atol=1e-6)
    assert (output.attentions >= 0).all()


def test_matches_a_slow_float64_reference() -> None:
    weights = random_weights(CONFIG, seed=3)
    ids = [2, 9, 4, 4, 11, 0, 19]
    output = encode(CONFIG, weights, np.array(ids))
    np.testing.assert_allclose(
        output.attentions, reference_attentions(CONFIG, weights, ids), atol=2e-5
    )


def test_the_fused_qkv_product_equals_the_three_separate_projections() -> None:
    weights = random_weights(CONFIG, seed=5)
    layer = weights.layers[1]
    hidden = np.random.default_rng(7).normal(size=(6, CONFIG.hidden_size)).astype(np.float32)
    laid_out = lay_out_for_products(layer)
    assert laid_out.products is not None
    for qkv in (laid_out.products.qkv, products_of(layer)[0]):  # laid out, and as given
        projected = qkv(hidden)
        assert projected.shape == (6, 3 * CONFIG.hidden_size)
        size = CONFIG.hidden_size
        for index, (weight, bias) in enumerate(
            [
                (layer.query_weight, layer.query_bias),
                (layer.key_weight, layer.key_bias),
                (layer.value_weight, layer.value_bias),
            ]
        ):
            separate = hidden @ weight.T + bias
            np.testing.assert_allclose(
                projected[:, index * size : (index + 1) * size], separate, rtol=1e-6, atol=1e-6
            )


def test_laid_out_and_given_weights_give_the_same_attention() -> None:
    weights = random_weights(CONFIG, seed=4)
    laid_out = replace(
        weights, layers=tuple(lay_out_for_products(layer) for layer in weights.layers)
    )
    ids = np.array([2, 9, 4, 11, 3])
    separate, together = encode(CONFIG, weights, ids), encode(CONFIG, laid_out, ids)
    np.testing.assert_allclose(together.attentions, separate.attentions, atol=1e-6)
    np.testing.assert_allclose(together.hidden_states, separate.hidden_states, atol=1e-5)


def test_padding_keys_get_no_weight_and_change_nothing_else() -> None:
    weights = random_weights(CONFIG, seed=1)
    real = encode(CONFIG, weights, np.array([3, 4, 5, 6]))
    padded = encode(CONFIG, weights, np.array([3, 4, 5, 6, 0, 0, 0]), np.array([1] * 4 + [0] * 3))
    assert (padded.attentions[..., 4:] == 0.0).all()
    np.testing.assert_allclose(padded.attentions[:, :, :4, :4], real.attentions, atol=1e-6)
    np.testing.assert_allclose(padded.hidden_states[:, :4], real.hidden_states, atol=1e-5)
    np.testing.assert_allclose(
        mean_pooled(padded, np.array([1] * 4 + [0] * 3)), mean_pooled(real), atol=1e-5
    )


def test_gelu_is_the_exact_erf_form() -> None:
    values = np.linspace(-6, 6, 101, dtype=np.float32)
    exact = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in values.tolist()]
    np.testing.assert_allclose(gelu(values), exact, atol=1e-6)


def test_gelu_keeps_its_sign_and_size_over_a_layers_worth_of_values() -> None:
    """Both signs, zero, the far tails (GELU -> x and -> 0) and a 2-D layer's shape."""
    values = np.concatenate(
        [np.random.default_rng(2).normal(0, 3, 16 * 96 - 5), [0.0, -0.0, 40.0, -40.0, 1e-30]]
    ).astype(np.float32)
    given = values.copy()
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in values.tolist()])
    found = gelu(values.reshape(16, 96)).reshape(-1)
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, exact, rtol=2e-6, atol=3e-7)
    assert found[-3] == 40.0 and found[-2] == 0.0
    np.testing.assert_array_equal(values, given)  # the input is left as it was


def softmax_in_float64(scores: NDArray[np.float32]) -> NDArray[np.float64]:
    wide = scores.astype(np.float64)
    exps = np.exp(wide - wide.max(axis=-1, keepdims=True))
    return exps / exps.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("spread", [0.0, 70.0, 200.0, 1e30])
def test_softmax_matches_float64_whether_rows_share_a_shift_or_not(spread: float) -> None:
    """Rows near each other share one shift; a row far below the largest score (200 or 1e30
    less: exp would round all of it to zero with the shared shift) gets its own."""
    scores = np.random.default_rng(3).normal(0, 4, (3, 5, 7)).astype(np.float32)
    scores[1, 2] -= np.float32(spread)
    expected = softmax_in_float64(scores)
    found = masked_softmax(scores.copy(), None)
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(found.sum(axis=-1), 1.0, atol=1e-6)


def test_softmax_gives_masked_keys_exactly_zero() -> None:
    scores = np.random.default_rng(4).normal(0, 4, (2, 3, 5)).astype(np.float32)
    keep = np.array([True, True, False, True, False])
    found = masked_softmax(scores.copy(), keep[None, None, :])
    assert np.all(found[..., ~keep] == 0.0)
    np.testing.assert_allclose(
        found[..., keep], softmax_in_float64(scores[..., keep]), rtol=1e-5, atol=1e-7
    )


def test_layer_norm_matches_float64_over_each_row() -> None:
    rng = np.random.default_rng(8)
    values = (rng.normal(size=(5, 384)) * 4 + 3).astype(np.float32)
    gain, bias = rng.normal(size=384).astype(np.float32), rng.normal(size=384).astype(np.float32)
    wide = values.astype(np.float64)
    centred = wide - wide.mean(axis=-1, keepdims=True)
    exact = centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-12) * gain + bias
    found = layer_norm(values, gain, bias, 1e-12)
    assert found.dtype == np.float32 and found.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(found, exact, atol=1e-5)
    in_place = values.copy()  # as encode() normalises a layer's sum where it lies
    assert layer_norm(in_place, gain, bias, 1e-12, out=in_place) is in_place
    np.testing.assert_allclose(in_place, exact, atol=1e-5)


def test_the_layout_keeps_the_given_weights_and_copies_them_once_into_one_buffer() -> None:
    layer = random_weights(CONFIG, seed=6).layers[0]
    laid_out = lay_out_for_products(layer)
    for name in ("query", "key", "value", "attention_output", "intermediate", "output"):
        assert getattr(laid_out, f"{name}_weight") is getattr(layer, f"{name}_weight")
    assert laid_out.products is not None
    products = (
        laid_out.products.qkv,
        laid_out.products.attention_output,
        laid_out.products.intermediate,
        laid_out.products.output,
    )
    # one buffer, in the order a pass reads the products, sharing nothing with the given
    buffer = products[0].blocks.base
    assert buffer is not None and buffer.size == sum(p.blocks.size for p in products)
    assert all(product.blocks.base is buffer for product in products)
    starts = [product.blocks.__array_interface__["data"][0] for product in products]
    assert starts == sorted(starts)
    names = ("query", "key", "value", "attention_output", "intermediate", "output")
    assert not any(np.shares_memory(buffer, getattr(layer, f"{n}_weight")) for n in names)


@pytest.mark.parametrize(
    ("inputs", "outputs", "count"), [(384, 1152, 36), (1536, 384, 12), (8, 24, 1), (64, 100, 1)]
)
def test_weights_are_cut_into_32_column_blocks_where_32_divides(
    inputs: int, outputs: int, count: int
) -> None:
    weight = np.arange(outputs * inputs, dtype=np.float32).reshape(outputs, inputs)
    product = lay_out_product((weight,), (np.zeros(outputs, np.float32),), np.empty(weight.size))
    assert product.blocks.shape == (count, inputs, outputs // count)
    assert product.blocks.flags["C_CONTIGUOUS"]
    # block b, column j is output b * width + j: weight row b * width + j, read down `in`
    width = outputs // count
    np.testing.assert_array_equal(product.blocks[-1, :, 0], weight[(count - 1) * width])
    np.testing.assert_array_equal(product.blocks[0, 3], weight[:width, 3])


@pytest.mark.parametrize("rows", [1, 5, 16, 17, 40, 64, 82, 130])
@pytest.mark.parametrize(("inputs", "outputs"), [(384, 384), (96, 256), (1536, 64), (8, 24)])
def test_a_product_of_blocks_equals_the_plain_product(rows: int, inputs: int, outputs: int) -> None:
    """Against float64, for sentences short and long (past OpenBLAS's small products), for
    blocked and one-block layouts, and for Q, K and V given as three weights."""
    rng = np.random.default_rng(rows * 7 + inputs)
    parts = [rng.normal(size=(outputs // 4, inputs)).astype(np.float32) for _ in range(4)]
    biases = [rng.normal(size=outputs // 4).astype(np.float32) for _ in range(4)]
    product = lay_out_product(tuple(parts), tuple(biases), np.empty(outputs * inputs, np.float32))
    assert isinstance(product, Product)
    values = rng.normal(size=(rows, inputs)).astype(np.float32)
    found = product(values)
    weight = np.concatenate(parts).astype(np.float64)
    exact = values.astype(np.float64) @ weight.T + np.concatenate(biases)
    assert found.shape == (rows, outputs) and found.dtype == np.float32
    assert found.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(found, exact, rtol=1e-4, atol=1e-4 * np.sqrt(inputs))


def test_half_precision_layers_are_multiplied_as_given() -> None:
    """A layer whose weights are not laid out (lazily widened half precision) runs dense()
    on its own fields: the same numbers as the laid-out products."""
    layer = random_weights(CONFIG, seed=8).layers[1]
    assert isinstance(layer, LayerWeights) and layer.products is None
    laid_out = lay_out_for_products(layer).products
    assert laid_out is not None
    values = np.random.default_rng(2).normal(size=(5, CONFIG.hidden_size)).astype(np.float32)
    inner = np.random.default_rng(3).normal(size=(5, CONFIG.intermediate_size))
    given = products_of(layer)
    for index, blocked in enumerate(
        (laid_out.qkv, laid_out.attention_output, laid_out.intermediate, laid_out.output)
    ):
        argument = inner.astype(np.float32) if index == 3 else values
        np.testing.assert_allclose(given[index](argument), blocked(argument), atol=1e-5)


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ([], "non-empty"),
        (list(range(13)), "more than the model's 12"),
        ([1, 20], "between 0 and 19"),
        ([1, -1], "between 0 and 19"),
    ],
)
def test_input_the_model_cannot_take_is_refused(ids: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        encode(CONFIG, random_weights(CONFIG), np.array(ids, dtype=np.int64))


def test_a_mask_that_hides_everything_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        encode(CONFIG, random_weights(CONFIG), np.array([1, 2]), np.array([0, 0]))


def test_merging_pieces_adds_keys_and_averages_queries() -> None:
    attentions = np.array(
        [[[[0.5, 0.25, 0.25], [0.2, 0.2, 0.6], [0.0, 1.0, 0.0]]]], dtype=np.float32
    )
    merged = merge_pieces(attentions, [0, 1, 1])  # pieces 1 and 2 make one word
    np.testing.assert_allclose(merged[0, 0], [[0.5, 0.5], [0.1, 0.9]], atol=1e-7)


def test_ranking_heads_and_strongest_links() -> None:
    attentions = np.zeros((2, 3, 2, 2), dtype=np.float32)
    attentions[..., 0] = 1.0
    attentions[1, 2, 0] = [0.3, 0.7]
    attentions[0, 1, 0] = [0.6, 0.4]
    ranked = rank_heads(attentions, 0, 1)
    assert [(layer, head) for layer, head, _ in ranked[:2]] == [(1, 2), (0, 1)]
    assert [weight for _, _, weight in ranked[:2]] == pytest.approx([0.7, 0.4])
    assert strongest_links(attentions, 0) == [(0, 0, 0, 1.0), (1, 1, 2, pytest.approx(0.7))]


@pytest.mark.parametrize(
    "module",
    [
        "tui_course.maths.encoder",
        "tui_course.realmodel.loading",
        "tui_course.realmodel.service",
        "tui_course.realmodel.attention",
        "tui_course.render.real_model",
    ],
)
def test_the_encoder_and_loader_import_no_ui_and_no_optional_loaders(module: str) -> None:
    from tests.unit.test_layers import loaded_after

    modules = loaded_after(f"import {module}")
    tops = {name.split(".")[0] for name in modules}
    assert not tops & {"textual", "safetensors", "tokenizers", "onnxruntime", "torch"}
    assert not {name for name in modules if name.startswith("tui_course.ui")}


def test_merging_needs_consecutive_words() -> None:
    attentions = np.full((1, 1, 3, 3), 1 / 3, dtype=np.float32)
    for groups in ([0, 2, 2], [1, 1, 2], [0, 1, 0]):
        with pytest.raises(ValueError, match="consecutive"):
            merge_pieces(attentions, groups)
