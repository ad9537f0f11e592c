"""A library of common mistakes, by the function a code question asks for.

`attn-tui validate` runs each one on a question's visible cases: every one must fail
them (a declared `[[question.mistake]]` may recognise it and say what is wrong), or an
honest-looking wrong answer would pass the check and fail only on class recheck. Each
function is written as a student would write it, self-contained (NumPy as `np` only),
so the tests can also send it through the sandbox as student code.

A question whose function is not listed here has no library to pass (a course of its
own can still declare mistakes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CommonMistake:
    name: str  # as validate names it
    function: Callable[..., Any]


# attention_weights(Q, K) ------------------------------------------------------------


def attention_weights_float32(Q, K):  # type: ignore[no-untyped-def]
    Q, K = Q.astype(np.float32), K.astype(np.float32)
    s = Q @ K.T / np.float32(np.sqrt(Q.shape[-1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_global_max(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_softmax_axis_0(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def attention_weights_sum_axis_0(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def attention_weights_no_scale(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_scale_by_d(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / Q.shape[-1]
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_sqrt_key_count(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(K.shape[0])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_times_sqrt_d(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T * np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_transposed_result(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).T


def attention_weights_keys_as_queries(Q, K):  # type: ignore[no-untyped-def]
    s = K @ Q.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_no_max(Q, K):  # type: ignore[no-untyped-def]
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_max_without_keepdims(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1))
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights_sum_without_keepdims(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def attention_weights_not_normalised(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    return np.exp(s - s.max(axis=-1, keepdims=True))


def attention_weights_normalised_over_all(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum()


def attention_weights_not_transposed(Q, K):  # type: ignore[no-untyped-def]
    s = Q @ K / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# self_attention(x) ------------------------------------------------------------------


def self_attention_global_max(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True) @ x


def self_attention_softmax_axis_0(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True) @ x


def self_attention_no_scale(x):  # type: ignore[no-untyped-def]
    s = x @ x.T
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ x


def self_attention_scale_by_d(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / x.shape[-1]
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ x


def self_attention_sqrt_token_count(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[0])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ x


def self_attention_transposed_result(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True) @ x).T


def self_attention_weights_transposed(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).T @ x


def self_attention_weights_only(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def self_attention_no_max(x):  # type: ignore[no-untyped-def]
    e = np.exp(x @ x.T / np.sqrt(x.shape[-1]))
    return e / e.sum(axis=-1, keepdims=True) @ x


def self_attention_sum_without_keepdims(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1) @ x


def self_attention_not_normalised(x):  # type: ignore[no-untyped-def]
    s = x @ x.T / np.sqrt(x.shape[-1])
    return np.exp(s - s.max(axis=-1, keepdims=True)) @ x


# split_heads(q, num_heads) ----------------------------------------------------------


def split_heads_interleaved(q, num_heads):  # type: ignore[no-untyped-def]
    n, d = q.shape
    return q.reshape(n, d // num_heads, num_heads).transpose(2, 0, 1)


def split_heads_plain_reshape(q, num_heads):  # type: ignore[no-untyped-def]
    n, d = q.shape
    return q.reshape(num_heads, n, d // num_heads)


def split_heads_heads_second(q, num_heads):  # type: ignore[no-untyped-def]
    n, d = q.shape
    return q.reshape(n, num_heads, d // num_heads)


def split_heads_each_head_transposed(q, num_heads):  # type: ignore[no-untyped-def]
    n, d = q.shape
    return q.reshape(n, num_heads, d // num_heads).transpose(1, 2, 0)


def split_heads_true_division(q, num_heads):  # type: ignore[no-untyped-def]
    n, d = q.shape
    return q.reshape(n, num_heads, d / num_heads).transpose(1, 0, 2)


def split_heads_tokens_split(q, num_heads):  # type: ignore[no-untyped-def]
    return np.stack(np.array_split(q, num_heads, axis=0))


# positional_encoding(positions, d_model) --------------------------------------------


def positional_encoding_float32(positions, d_model):  # type: ignore[no-untyped-def]
    positions = np.asarray(positions, dtype=np.float32)
    columns = np.arange(d_model)
    rates = (1.0 / 10000 ** ((2 * (columns // 2)) / d_model)).astype(np.float32)
    angles = positions[:, None] * rates
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_sin_cos_swapped(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.cos(angles), np.sin(angles))


def positional_encoding_i_for_2i(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** ((columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_column_exponent(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (columns / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_base_1000(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 1000.0 ** (2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_base_e(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / np.exp(2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_times_frequency(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] * 10000.0 ** (2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_positions_off_by_one(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    p = np.asarray(positions, dtype=float)[:, None] + 1
    angles = p / 10000.0 ** (2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_positions_ignored(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    p = np.arange(len(positions), dtype=float)[:, None]
    angles = p / 10000.0 ** (2 * (columns // 2) / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_degrees(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (2 * (columns // 2) / d_model)
    angles = np.radians(angles)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def positional_encoding_sines_then_cosines(positions, d_model):  # type: ignore[no-untyped-def]
    pairs = np.arange(0, d_model, 2)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (pairs / d_model)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)[:, :d_model]


def positional_encoding_sine_only(positions, d_model):  # type: ignore[no-untyped-def]
    columns = np.arange(d_model)
    angles = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (2 * (columns // 2) / d_model)
    return np.sin(angles)


def _library(entry: str, *functions: Callable[..., Any]) -> tuple[CommonMistake, ...]:
    return tuple(
        CommonMistake(function.__name__.removeprefix(entry + "_").replace("_", " "), function)
        for function in functions
    )


LIBRARY: dict[str, tuple[CommonMistake, ...]] = {
    "attention_weights": _library(
        "attention_weights",
        attention_weights_float32,
        attention_weights_global_max,
        attention_weights_softmax_axis_0,
        attention_weights_sum_axis_0,
        attention_weights_no_scale,
        attention_weights_scale_by_d,
        attention_weights_sqrt_key_count,
        attention_weights_times_sqrt_d,
        attention_weights_transposed_result,
        attention_weights_keys_as_queries,
        attention_weights_no_max,
        attention_weights_max_without_keepdims,
        attention_weights_sum_without_keepdims,
        attention_weights_not_normalised,
        attention_weights_normalised_over_all,
        attention_weights_not_transposed,
    ),
    "self_attention": _library(
        "self_attention",
        self_attention_global_max,
        self_attention_softmax_axis_0,
        self_attention_no_scale,
        self_attention_scale_by_d,
        self_attention_sqrt_token_count,
        self_attention_transposed_result,
        self_attention_weights_transposed,
        self_attention_weights_only,
        self_attention_no_max,
        self_attention_sum_without_keepdims,
        self_attention_not_normalised,
    ),
    "split_heads": _library(
        "split_heads",
        split_heads_interleaved,
        split_heads_plain_reshape,
        split_heads_heads_second,
        split_heads_each_head_transposed,
        split_heads_true_division,
        split_heads_tokens_split,
    ),
    "positional_encoding": _library(
        "positional_encoding",
        positional_encoding_float32,
        positional_encoding_sin_cos_swapped,
        positional_encoding_i_for_2i,
        positional_encoding_column_exponent,
        positional_encoding_base_1000,
        positional_encoding_base_e,
        positional_encoding_times_frequency,
        positional_encoding_positions_off_by_one,
        positional_encoding_positions_ignored,
        positional_encoding_degrees,
        positional_encoding_sines_then_cosines,
        positional_encoding_sine_only,
    ),
}


def common_mistakes(entry: str) -> tuple[CommonMistake, ...]:
    return LIBRARY.get(entry, ())
