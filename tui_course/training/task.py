"""The section-10 task: is the first of N digits equal to the last?

Data generation is plain NumPy. Keras is imported inside the builders only,
and only the training child process calls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tui_course import specs

MODELS = specs.MODELS.choices
VOCAB = 10  # digits 1..9, and 0 unused (kept so ids are the digits themselves)
EMBED_DIM = 32
HEADS = 4
KEY_DIM = 16
FF_DIM = 64
RNN_UNITS = 100  # about as many parameters as the Transformer (13,721 vs 14,049)
LSTM_UNITS = 44  # 13,917 parameters


@dataclass(frozen=True)
class Dataset:
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def make_data(seed: int = 0, n_train: int = 8000, n_test: int = 2000, length: int = 30) -> Dataset:
    """The source's own experiment, draw for draw: one default_rng(seed) makes the
    training rows, then the test rows. In each call about half the rows (a coin per
    row) get the first digit copied over the last; one in nine of the others match by
    chance, so about 0.5 + 0.5 / 9 = 5/9 of the labels are "same"."""
    rng = np.random.default_rng(seed)
    x_train, y_train = _draw_rows(rng, n_train, length)
    x_test, y_test = _draw_rows(rng, n_test, length)
    return Dataset(x_train, y_train, x_test, y_test)


def _draw_rows(rng: np.random.Generator, n: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The source's make_data(n): the digits, then the coins, in that order."""
    x = rng.integers(1, 10, (n, length))
    same = rng.random(n) < 0.5
    x[same, -1] = x[same, 0]
    y = (x[:, 0] == x[:, -1]).astype("float32")
    return x, y


def positive_rate(labels: np.ndarray) -> float:
    """The share of "same" rows: what a model always answering "same" scores."""
    return float(np.mean(labels, dtype=np.float64))


EXPECTED_POSITIVE_RATE = 0.5 + 0.5 / 9
"""Half the rows made equal on purpose, one in nine of the rest equal by chance."""


def build_model(
    kind: str = "transformer", length: int = 30, position: bool = True
) -> tuple[Any, Any]:
    """(model, attention_model or None). attention_model maps tokens to the
    (heads, length, length) attention weights of the trained layer."""
    import keras
    from keras import layers

    AddPositions = _add_positions_layer()

    tokens = keras.Input(shape=(length,), dtype="int32", name="digits")
    x = layers.Embedding(VOCAB, EMBED_DIM, name="token_embedding")(tokens)
    if kind == "transformer":
        if position:
            x = AddPositions(length, EMBED_DIM, name="position_embedding")(x)
        attended, scores = layers.MultiHeadAttention(
            num_heads=HEADS, key_dim=KEY_DIM, name="attention"
        )(x, x, return_attention_scores=True)
        x = layers.LayerNormalization(name="norm_1")(x + attended)
        ff = layers.Dense(FF_DIM, activation="relu", name="ff_1")(x)
        ff = layers.Dense(EMBED_DIM, name="ff_2")(ff)
        x = layers.LayerNormalization(name="norm_2")(x + ff)
        x = layers.GlobalAveragePooling1D(name="pool")(x)
        attention_model = keras.Model(tokens, scores, name="attention_weights")
    elif kind == "rnn":
        x = layers.SimpleRNN(RNN_UNITS, name="rnn")(x)
        attention_model = None
    elif kind == "lstm":
        x = layers.LSTM(LSTM_UNITS, name="lstm")(x)
        attention_model = None
    else:
        raise ValueError(f"unknown model '{kind}' (choose from {', '.join(MODELS)})")
    output = layers.Dense(1, activation="sigmoid", name="same")(x)
    model = keras.Model(tokens, output, name=kind)
    return model, attention_model


def _add_positions_layer() -> Any:
    """A layer adding a learned Embedding(length, dim) of the indices 0..length-1.

    Written as a layer so the position table is part of the model graph: an
    Embedding applied to a constant arange outside a layer is not trained.
    """
    import keras
    from keras import layers, ops

    @keras.saving.register_keras_serializable(package="attn_tui")
    class AddPositions(layers.Layer):  # type: ignore[misc]
        def __init__(self, length: int, dim: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.length, self.dim = length, dim
            self.table = layers.Embedding(length, dim, name="table")

        def build(self, input_shape: Any) -> None:
            self.table.build((self.length,))

        def call(self, x: Any) -> Any:
            return x + self.table(ops.arange(self.length))

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "length": self.length, "dim": self.dim}

    return AddPositions
