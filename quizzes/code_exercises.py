"""Trusted reference code for quizzes/code.toml: the right answers and the typical mistakes.

The app runs this file in a child process of its own (NumPy only, with time and memory
limits), never in the process that runs a student's code, and compares the results.
Each `*_no_scale`, `*_wrong_axis`... function is one mistake the quiz recognises.
"""

import numpy as np


def _softmax_rows(scores):
    shifted = scores - scores.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=-1, keepdims=True)


# attention_weights(Q, K) ------------------------------------------------------------


def attention_weights(Q, K):
    return _softmax_rows(Q @ K.T / np.sqrt(Q.shape[-1]))


def attention_weights_float32(Q, K):
    Q, K = Q.astype(np.float32), K.astype(np.float32)
    return _softmax_rows(Q @ K.T / np.float32(np.sqrt(Q.shape[-1])))


def attention_weights_no_scale(Q, K):
    return _softmax_rows(Q @ K.T)


def attention_weights_wrong_axis(Q, K):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    shifted = scores - scores.max(axis=0, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=0, keepdims=True)


def attention_weights_not_transposed(Q, K):
    return _softmax_rows(Q @ K / np.sqrt(Q.shape[-1]))


def attention_weights_no_max(Q, K):
    with np.errstate(all="ignore"):
        exps = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
        return exps / exps.sum(axis=-1, keepdims=True)


def attention_weights_global_max(Q, K):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    with np.errstate(all="ignore"):
        exps = np.exp(scores - scores.max())
        return exps / exps.sum(axis=-1, keepdims=True)


def attention_weights_scale_by_d(Q, K):
    return _softmax_rows(Q @ K.T / Q.shape[-1])


def attention_weights_sqrt_key_count(Q, K):
    return _softmax_rows(Q @ K.T / np.sqrt(K.shape[0]))


# split_heads(q, num_heads) ----------------------------------------------------------


def split_heads(q, num_heads):
    n, d = q.shape
    return q.reshape(n, num_heads, d // num_heads).transpose(1, 0, 2)


def split_heads_interleaved(q, num_heads):
    n, d = q.shape
    return q.reshape(n, d // num_heads, num_heads).transpose(2, 0, 1)


def split_heads_plain_reshape(q, num_heads):
    n, d = q.shape
    return q.reshape(num_heads, n, d // num_heads)


def split_heads_heads_second(q, num_heads):
    n, d = q.shape
    return q.reshape(n, num_heads, d // num_heads)


# positional_encoding(positions, d_model) --------------------------------------------


def _angles(positions, d_model, pair_exponent=True):
    columns = np.arange(d_model)
    exponent = 2 * (columns // 2) if pair_exponent else columns
    return np.asarray(positions, dtype=np.float64)[:, None] / 10000.0 ** (exponent / d_model)


def positional_encoding(positions, d_model):
    angles = _angles(positions, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_float32(positions, d_model):
    columns = np.arange(d_model)
    rates = (1.0 / 10000.0 ** (2 * (columns // 2) / d_model)).astype(np.float32)
    angles = np.asarray(positions, dtype=np.float32)[:, None] * rates
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_swapped(positions, d_model):
    angles = _angles(positions, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.cos(angles), np.sin(angles))


def positional_encoding_degrees(positions, d_model):
    angles = np.radians(_angles(positions, d_model))
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_column_exponent(positions, d_model):
    angles = _angles(positions, d_model, pair_exponent=False)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_off_by_one(positions, d_model):
    angles = _angles(np.asarray(positions, dtype=np.float64) + 1, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_base_1000(positions, d_model):
    angles = _angles(positions, d_model) * 10.0 ** (2 * (np.arange(d_model) // 2) / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_sines_then_cosines(positions, d_model):
    half = _angles(positions, d_model)[:, ::2]
    return np.concatenate([np.sin(half), np.cos(half)], axis=-1)[:, :d_model]


# self_attention(x) ------------------------------------------------------------------


def self_attention(x):
    weights = _softmax_rows(x @ x.T / np.sqrt(x.shape[-1]))
    return weights @ x


def self_attention_no_scale(x):
    return _softmax_rows(x @ x.T) @ x


def self_attention_wrong_axis(x):
    scores = x @ x.T / np.sqrt(x.shape[-1])
    shifted = scores - scores.max(axis=0, keepdims=True)
    exps = np.exp(shifted)
    return (exps / exps.sum(axis=0, keepdims=True)) @ x


def self_attention_no_max(x):
    with np.errstate(all="ignore"):
        exps = np.exp(x @ x.T / np.sqrt(x.shape[-1]))
        return (exps / exps.sum(axis=-1, keepdims=True)) @ x


def self_attention_global_max(x):
    scores = x @ x.T / np.sqrt(x.shape[-1])
    with np.errstate(all="ignore"):
        exps = np.exp(scores - scores.max())
        return (exps / exps.sum(axis=-1, keepdims=True)) @ x


def self_attention_weights_only(x):
    return _softmax_rows(x @ x.T / np.sqrt(x.shape[-1]))
