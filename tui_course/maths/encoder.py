"""A BERT-family Transformer encoder in plain NumPy, returning every layer's attention.

The course's toy figures use hand-made vectors; this runs a pretrained encoder
(all-MiniLM-L6-v2 or any BERT-layout model) so a student can see what real heads
look at. It is inference only, float32, one sentence at a time, and it imports
nothing beyond NumPy: loading the weights lives in tui_course.realmodel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float32]

# GELU's erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7, under float32's own
# rounding), because NumPy has no erf and BERT's GELU is the exact erf form, not the tanh
# one: erf(z) = 1 - t (a1 + a2 t + ... + a5 t^4) exp(-z^2), t = 1 / (1 + p z), z >= 0. Here
# with GELU's z = x / sqrt(2) folded into p (t = (1/p) / (|x| + 1/p)) and the CDF's 1/2 into
# the coefficients.
_GELU_INVERSE_P = np.float32(np.sqrt(2.0) / 0.3275911)
_GELU_EXP2_SCALE = np.float32(-0.5 / np.log(2.0))
_GELU_A = tuple(
    np.float32(a / 2) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
)


@dataclass(frozen=True)
class EncoderConfig:
    """The sizes an encoder is built from (the fields of a Hugging Face BERT config.json)."""

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_positions: int
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_heads


# OpenBLAS multiplies [rows, in] @ [in, width] without packing the weight first when
# rows * in * width is at most 100^3 (its small-matrix kernels, on cores with AVX-512), and
# on a sentence's few rows packing costs about as much as the multiplying. So the weights are
# stored cut into blocks of _BLOCK_WIDTH columns (two AVX-512 registers): MiniLM's products
# stay small up to 81 word pieces (in = 384) and 20 (in = 1536), and a block is read front to
# back, 128 bytes a row, as a pass streams 42 MB of weights that no cache holds. Measured on
# one Zen 4 core, 16 tokens: 5.1 ms a pass, against 5.35 ms with 128-column blocks and 8.1 ms
# with whole matrices (10.2 ms for the layout before blocks, which packed at every product).
# OpenBLAS's AVX2 kernels (OPENBLAS_CORETYPE=Haswell or Zen) have no such path: there the
# blocks cost 1-11% more than whole matrices (several runs), a fraction of a millisecond.
_BLOCK_WIDTH = 32


@dataclass(frozen=True)
class Product:
    """One dense layer, `values @ weight.T + bias` for weights [out, in] as PyTorch saves
    them, laid out for a sentence's few rows: weight.T's columns cut into blocks of
    _BLOCK_WIDTH (one block when that does not divide out), stored one after another as
    blocks[count, in, width]."""

    blocks: Array
    bias: Array

    def __call__(self, values: Array) -> Array:
        """[rows, out], C-ordered: one matmul over the stack of blocks, written in place."""
        count, _, width = self.blocks.shape
        rows = values.shape[0]
        out = np.empty((rows, count * width), dtype=np.float32)
        np.matmul(values, self.blocks, out=out.reshape(rows, count, width).transpose(1, 0, 2))
        out += self.bias
        return out


def lay_out_product(weights: tuple[Array, ...], biases: tuple[Array, ...], out: Array) -> Product:
    """The product of [out, in] weights stacked along out (Q, K and V in one), with its blocks
    copied into `out` (a float32 buffer of exactly their size)."""
    inputs = weights[0].shape[1]
    outputs = sum(weight.shape[0] for weight in weights)
    width = _BLOCK_WIDTH if outputs % _BLOCK_WIDTH == 0 else outputs
    count = outputs // width
    blocks = out.reshape(count, inputs, width)
    # block b holds weight rows b * width onwards, transposed: blocks[b, i, j] = W[b*width+j, i]
    whole = weights[0] if len(weights) == 1 else np.concatenate(weights, axis=0)
    blocks[...] = np.asarray(whole).reshape(count, width, inputs).transpose(0, 2, 1)
    bias = np.concatenate(biases, axis=0, dtype=np.float32)
    return Product(blocks, bias)


@dataclass(frozen=True)
class LayerProducts:
    """A layer's four dense products in one buffer, in the order a pass reads them."""

    qkv: Product
    attention_output: Product
    intermediate: Product
    output: Product


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer. Dense weights are stored [out, in], as PyTorch saves them."""

    query_weight: Array
    query_bias: Array
    key_weight: Array
    key_bias: Array
    value_weight: Array
    value_bias: Array
    attention_output_weight: Array
    attention_output_bias: Array
    attention_norm_weight: Array
    attention_norm_bias: Array
    intermediate_weight: Array
    intermediate_bias: Array
    output_weight: Array
    output_bias: Array
    output_norm_weight: Array
    output_norm_bias: Array
    # The dense weights again, laid out for encode(), when made by lay_out_for_products.
    products: LayerProducts | None = None


def lay_out_for_products(layer: LayerWeights) -> LayerWeights:
    """The layer with its products laid out as encode() runs them fastest: Q, K and V of
    every head in one product, and each product's weight cut into column blocks (Product).
    One float32 copy of the dense weights, in one buffer in the order a pass reads it (numpy
    asks the kernel for huge pages for any array of 4 MiB or more); the [out, in] fields stay
    as given (for the real model: views of the memory map, not read again)."""
    groups = (
        (
            (layer.query_weight, layer.key_weight, layer.value_weight),
            (layer.query_bias, layer.key_bias, layer.value_bias),
        ),
        ((layer.attention_output_weight,), (layer.attention_output_bias,)),
        ((layer.intermediate_weight,), (layer.intermediate_bias,)),
        ((layer.output_weight,), (layer.output_bias,)),
    )
    sizes = [sum(int(np.prod(weight.shape)) for weight in weights) for weights, _ in groups]
    buffer = np.empty(sum(sizes), dtype=np.float32)
    products = []
    start = 0
    for (weights, biases), size in zip(groups, sizes, strict=True):
        products.append(lay_out_product(weights, biases, buffer[start : start + size]))
        start += size
    return replace(layer, products=LayerProducts(*products))


def products_of(layer: LayerWeights) -> tuple[Callable[[Array], Array], ...]:
    """Q, K and V in one, the attention output, the feed-forward's two: the layer's laid-out
    products, or (half-precision weights, widened only while used) dense() on the given."""
    if layer.products is not None:
        laid_out = layer.products
        return (laid_out.qkv, laid_out.attention_output, laid_out.intermediate, laid_out.output)
    weight = np.concatenate(
        [layer.query_weight, layer.key_weight, layer.value_weight], axis=0, dtype=np.float32
    )
    bias = np.concatenate(
        [layer.query_bias, layer.key_bias, layer.value_bias], axis=0, dtype=np.float32
    )
    pairs = (
        (weight, bias),
        (layer.attention_output_weight, layer.attention_output_bias),
        (layer.intermediate_weight, layer.intermediate_bias),
        (layer.output_weight, layer.output_bias),
    )
    return tuple(functools.partial(dense, weight=w, bias=b) for w, b in pairs)


@dataclass(frozen=True)
class EncoderWeights:
    word_embeddings: Array
    position_embeddings: Array
    token_type_embeddings: Array
    embedding_norm_weight: Array
    embedding_norm_bias: Array
    layers: tuple[LayerWeights, ...]


@dataclass(frozen=True)
class EncoderOutput:
    """attentions[layer, head, query, key]; hidden_states[0] is the embedding output and
    hidden_states[i] the output of layer i (so there are layers + 1 of them)."""

    attentions: Array
    hidden_states: Array


def gelu(values: Array) -> Array:
    """GELU as BERT defines it: x * Phi(x), with the exact normal CDF (erf as above).

    Computed as (x + |x|) / 2 - |x| * Phi(-|x|), which is x * Phi(x) for either sign, with
    Phi(-|x|) the formula's own tail, on two new buffers. Every pass is a plain ufunc on
    arrays or a float32 scalar: np.maximum(x, 0) and np.reciprocal each cost as much as five
    additions on 16 x 1536 values (their scalar and reciprocal loops are not vectorised), and
    np.exp as four, so exp(-x^2 / 2) is taken as np.exp2(-x^2 log2(e) / 2), which costs
    two (45 us a layer on one core, from 52)."""
    size = np.abs(values)
    t = np.add(size, _GELU_INVERSE_P)
    np.divide(_GELU_INVERSE_P, t, out=t)
    tail = np.multiply(t, _GELU_A[0])
    for coefficient in _GELU_A[1:]:
        tail += coefficient
        tail *= t
    np.square(size, out=t)
    t *= _GELU_EXP2_SCALE
    np.exp2(t, out=t)
    tail *= t
    tail *= size
    size += values
    size *= np.float32(0.5)
    size -= tail
    return size


@functools.cache
def _filled(count: int, value: float) -> Array:
    """A read-only float32 vector of `count` times `value`, made once: the row sums and means
    below are products with one (np.full costs as much as the product on 16 rows)."""
    vector = np.full(count, value, dtype=np.float32)
    vector.flags.writeable = False
    return vector


def layer_norm(
    values: Array, weight: Array, bias: Array, eps: float, out: Array | None = None
) -> Array:
    """Over the last axis, in float32, into `out` (which may be `values`) or one new buffer
    (it runs 13 times a sentence).

    The two means are products with a 1/n vector: one BLAS call each, where .mean() costs
    several NumPy calls (16 rows of 384 make the calls, not the sums, what takes time)."""
    share = _filled(values.shape[-1], 1.0 / values.shape[-1])
    centred: Array = np.subtract(values, np.matmul(values, share)[..., None], out=out)
    scale = np.matmul(np.square(centred), share)
    scale += np.float32(eps)
    np.sqrt(scale, out=scale)
    centred /= scale[..., None]
    centred *= weight
    centred += bias
    return centred


def dense(values: Array, weight: Array, bias: Array) -> Array:
    """values @ weight.T + bias, for weights [out, in] as PyTorch saves them; the result is
    C-ordered [rows, out]."""
    # np.asarray: a lazily widened half-precision weight has no .T until it is widened.
    out: Array = np.matmul(values, np.asarray(weight).T)
    out += bias
    return out


# exp(-80) is a normal float32 (about 1.8e-35, above float32's 1.2e-38), so when no score is
# more than this below the largest, one shift for every row keeps each row's sum normal.
_SHARED_SHIFT_SPREAD = 80.0


def masked_softmax(scores: Array, key_mask: NDArray[np.bool_] | None) -> Array:
    """Softmax over keys, in place on `scores`; masked-out keys get exactly zero weight
    (None: every key is kept).

    Softmax is the same for any shift of a row, so an unmasked block whose scores all lie
    within _SHARED_SHIFT_SPREAD of its largest is shifted by that one number: a whole-array
    max and min cost less than a max per row of 16 (10 us for 12 heads of 16 x 16). Rows are
    summed by a product with a ones vector, for the same reason."""
    top: np.float32 | None = None
    if key_mask is not None:
        np.copyto(scores, np.float32(-np.inf), where=~key_mask)
    else:
        top = scores.max()
        if not top - scores.min() < _SHARED_SHIFT_SPREAD:  # also when a score is NaN or inf
            top = None
    if top is None:
        scores -= np.maximum.reduce(scores, axis=-1, keepdims=True)
    else:
        scores -= top
    np.exp(scores, out=scores)
    scores /= np.matmul(scores, _filled(scores.shape[-1], 1.0))[..., None]
    return scores


def encode(
    config: EncoderConfig,
    weights: EncoderWeights,
    token_ids: NDArray[np.integer],
    attention_mask: NDArray[np.integer] | None = None,
    token_type_ids: NDArray[np.integer] | None = None,
) -> EncoderOutput:
    """Run the encoder over one sequence of token ids.

    `attention_mask` is 1 for real tokens and 0 for padding: no query attends to
    a padding key. Raises ValueError for input the model cannot take.
    """
    ids = np.asarray(token_ids, dtype=np.int64)
    length = ids.shape[0] if ids.ndim == 1 else 0
    if ids.ndim != 1 or length == 0:
        raise ValueError("token_ids must be a non-empty sequence of ids")
    if length > config.max_positions:
        raise ValueError(f"{length} tokens is more than the model's {config.max_positions}")
    if ids.min() < 0 or ids.max() >= config.vocab_size:
        raise ValueError(f"token ids must be between 0 and {config.vocab_size - 1}")
    mask = np.ones(length, dtype=bool) if attention_mask is None else np.asarray(attention_mask) > 0
    if mask.shape != (length,) or not mask.any():
        raise ValueError("attention_mask must match token_ids and keep at least one token")
    types = np.zeros(length, np.int64) if token_type_ids is None else np.asarray(token_type_ids)

    heads, size = config.num_heads, config.head_size
    scale = np.float32(1.0 / np.sqrt(size))
    attentions = np.empty((config.num_layers, heads, length, length), dtype=np.float32)
    # Each layer's output is normalised straight into its row here, and read from there.
    states = np.empty((config.num_layers + 1, length, config.hidden_size), dtype=np.float32)
    embedded = np.asarray(weights.word_embeddings[ids], dtype=np.float32)
    embedded += weights.position_embeddings[:length]
    embedded += weights.token_type_embeddings[types]
    eps = config.layer_norm_eps
    hidden = layer_norm(
        embedded, weights.embedding_norm_weight, weights.embedding_norm_bias, eps, out=states[0]
    )
    # Each head's context is written where merging the heads reads it: [length, heads, size].
    context = np.empty((length, heads, size), dtype=np.float32)
    key_mask = None if mask.all() else mask[None, None, :]
    for index, layer in enumerate(weights.layers):
        qkv, attention_output, intermediate, output_product = products_of(layer)
        # One matmul for Q, K and V of every head: [length, 3 * hidden], then
        # [length, 3, heads, head_size] -> three [heads, length, head_size] stacks.
        projected = qkv(hidden)
        query, key, value = projected.reshape(length, 3, heads, size).transpose(1, 2, 0, 3)
        scores = np.matmul(query, key.transpose(0, 2, 1), out=attentions[index])
        scores *= scale
        attention = masked_softmax(scores, key_mask)
        np.matmul(attention, value, out=context.transpose(1, 0, 2))
        attended = attention_output(context.reshape(length, config.hidden_size))
        attended += hidden
        hidden = layer_norm(
            attended, layer.attention_norm_weight, layer.attention_norm_bias, eps, out=attended
        )
        output = output_product(gelu(intermediate(hidden)))
        output += hidden
        hidden = layer_norm(
            output, layer.output_norm_weight, layer.output_norm_bias, eps, out=states[index + 1]
        )
    return EncoderOutput(attentions=attentions, hidden_states=states)


def mean_pooled(output: EncoderOutput, attention_mask: NDArray[np.integer] | None = None) -> Array:
    """The sentence vector sentence-transformers uses: the last layer averaged over real tokens."""
    last = output.hidden_states[-1]
    if attention_mask is None:
        return np.asarray(last.mean(axis=0), dtype=np.float32)
    keep = np.asarray(attention_mask) > 0
    return np.asarray(last[keep].mean(axis=0), dtype=np.float32)


def merge_pieces(attentions: Array, word_of_piece: NDArray[np.integer] | list[int]) -> Array:
    """Attention between words instead of word pieces: the weights a query piece gives to the
    pieces of one word are added, and the rows of a word's pieces are averaged (so each row
    still sums to 1). A word's pieces are consecutive, as a tokenizer makes them."""
    groups = np.asarray(word_of_piece, dtype=np.int64)
    steps = np.diff(groups)
    if groups.size == 0 or groups[0] != 0 or np.any((steps != 0) & (steps != 1)):
        raise ValueError("word_of_piece must number consecutive words from 0")
    starts = np.flatnonzero(np.r_[True, steps != 0])
    counts = np.diff(np.r_[starts, groups.size]).astype(np.float32)
    to_words = np.add.reduceat(attentions, starts, axis=-1)  # sum over each word's key pieces
    rows = np.add.reduceat(to_words, starts, axis=-2) / counts[:, None]  # mean over its queries
    return np.asarray(rows, dtype=np.float32)


def rank_heads(attentions: Array, query: int, key: int) -> list[tuple[int, int, float]]:
    """Every (layer, head, weight of query on key), strongest first."""
    weights = attentions[:, :, query, key]
    order = np.argsort(-weights, axis=None, kind="stable")
    layers, heads = np.unravel_index(order, weights.shape)
    return [
        (int(layer), int(head), float(weights[layer, head]))
        for layer, head in zip(layers, heads, strict=True)
    ]


def strongest_links(attentions: Array, query: int) -> list[tuple[int, int, int, float]]:
    """For each key: (key, layer, head, weight) of the head giving the query's most weight to it."""
    rows = attentions[:, :, query, :]  # [layer, head, key]
    links = []
    for key in range(rows.shape[-1]):
        flat = int(np.argmax(rows[:, :, key]))
        layer, head = divmod(flat, rows.shape[1])
        links.append((key, layer, head, float(rows[layer, head, key])))
    return links


def _preferences(
    first: Array,
    second: Array,
    query: tuple[int, int],
    one: tuple[int, int],
    other: tuple[int, int],
) -> tuple[Array, Array]:
    """Each head's preference (weight on `one` minus weight on `other`) in each sentence."""
    before = first[:, :, query[0], one[0]] - first[:, :, query[0], other[0]]
    after = second[:, :, query[1], one[1]] - second[:, :, query[1], other[1]]
    return before, after


def preference_shifts(
    first: Array,
    second: Array,
    query: tuple[int, int],
    one: tuple[int, int],
    other: tuple[int, int],
) -> Array:
    """How far each head's preference moves from the first sentence to the second: the
    preference (weight on `one` minus weight on `other`) in the second less that in the
    first, so a move towards `other` is negative. Indexes as for preference_flips."""
    before, after = _preferences(first, second, query, one, other)
    shifts: Array = after - before
    return shifts


def preference_flips(
    first: Array,
    second: Array,
    query: tuple[int, int],
    one: tuple[int, int],
    other: tuple[int, int],
) -> Array:
    """How far each head (layers, heads) switches between two words across two sentences.

    `first` and `second` are [layer, head, query, key] weights; each pair of indexes is
    (in the first sentence, in the second). A head's preference is its weight on `one`
    minus its weight on `other`; it flips when the sign changes (either way), and by as much
    as the smaller of the two preferences. A head that keeps its preference scores 0.
    """
    before, after = _preferences(first, second, query, one, other)
    flips: Array = np.where(before * after < 0, np.minimum(abs(before), abs(after)), 0.0)
    return flips
