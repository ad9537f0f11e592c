"""Every parameter a student or a lesson can set: its type, default and allowed values.

One table, read by the lesson blocks (content/blocks/), the command line
(`attn-tui attention`, `pe`, `train`) and the live views (attention and
positional-encoding figures, the training form), so a limit lives in one
place. Plain Python only: the command line imports this before anything heavy.

The training limits keep one run inside 2 GB of memory on a lab server; the
measurement behind them is bench/training_memory.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class IntSpec:
    """A whole number in [low, high] (or one of `choices`), with a default and an example."""

    name: str
    default: int
    low: int
    high: int
    help: str
    example: int
    choices: tuple[int, ...] = ()

    def problem(self, value: object) -> str | None:
        """Why `value` is not allowed, in one phrase; None when it is."""
        if isinstance(value, bool) or not isinstance(value, int):
            return f"'{self.name}' must be a whole number"
        if self.choices and value not in self.choices:
            return f"'{self.name}' must be {self.allowed()}, got {value}"
        if not self.low <= value <= self.high:
            return f"'{self.name}' must be {self.allowed()}, got {value}"
        return None

    def allowed(self) -> str:
        if self.choices:
            *first, last = (str(choice) for choice in self.choices)
            return f"{', '.join(first)} or {last}" if first else last
        return f"from {self.low:,} to {self.high:,}"

    def clamp(self, value: int) -> int:
        """The nearest allowed value (the live views' +/- keys stop at the limits)."""
        if self.choices:
            return min(self.choices, key=lambda choice: (abs(choice - value), choice))
        return min(max(value, self.low), self.high)

    def step(self, value: int, step: int) -> int:
        """The next allowed value `step` away: cycles through choices, stops at the limits."""
        if self.choices:
            index = self.choices.index(value) if value in self.choices else -1
            return self.choices[(index + step) % len(self.choices)]
        return self.clamp(value + step)

    def parse(self, text: str) -> int:
        """An argparse type: the number, or an error naming the limits."""
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        problem = self.problem(value)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"must be {self.allowed()}, got {value}")
        return value

    def flag_help(self) -> str:
        return f"{self.help} (default {self.default}; {self.allowed()}; e.g. {self.example})"


@dataclass(frozen=True)
class ChoiceSpec:
    """One of a fixed list of names."""

    name: str
    default: str
    choices: tuple[str, ...]
    help: str

    def problem(self, value: object) -> str | None:
        if not isinstance(value, str):
            return f"'{self.name}' must be a string"
        if value not in self.choices:
            return f"unknown {self.name} '{value}' (known: {', '.join(self.choices)})"
        return None

    def flag_help(self) -> str:
        return f"{self.help} (default {self.default}; one of {', '.join(self.choices)})"


# Figures in lessons, labs and `attn-tui attention` / `attn-tui pe`.

EMBEDDINGS = ChoiceSpec(
    "embeddings",
    "toy-train",
    ("toy-cat-sat", "toy-it", "toy-train", "hashed"),
    "the word vectors",
)
ATTENTION_HEADS = IntSpec(
    "heads", 1, 1, 4, "attention heads (1: Q = K = V; more: random Wq, Wk, Wv each)", 2, (1, 2, 4)
)
SENTENCE_WORDS = IntSpec("words", 7, 1, 64, "words of a sentence the figure uses", 7)
# A sentence box takes at most this many characters (64 long words): a 1 MB paste is
# refused at once instead of tokenised on every key.
SENTENCE_CHARS = 1000
DECIMALS = IntSpec("decimals", 3, 1, 4, "decimals of the encoding table", 2)
WEIGHT_DECIMALS = IntSpec("decimals", 2, 1, 4, "decimals of the listed weights", 3)
POSITIONS = IntSpec("positions", 8, 1, 64, "positions (rows) of the encoding", 16)
DIM = IntSpec("dim", 4, 1, 512, "d_model: numbers per position vector", 8)
START = IntSpec("start", 0, 0, 10_000, "the first position shown", 100)
SPLIT_HEADS = IntSpec("heads", 2, 1, 64, "heads sharing the model dimension", 4)
VOCAB = IntSpec("vocab", 10, 1, 100_000, "token ids the embedding knows", 10)
KEY_DIM = IntSpec("key_dim", 16, 1, 512, "numbers per head in Q, K and V", 16)
FF = IntSpec("ff", 64, 1, 10_000, "width of the feed-forward layer", 64)
# A pretrained model's layer and head (from 1); the loaded model's own sizes are checked too.
MODEL_LAYER = IntSpec("layer", 1, 1, 64, "the real model's layer, from 1", 4)
MODEL_HEAD = IntSpec("head", 1, 1, 64, "the head within that layer, from 1", 2)

# The training lab and `attn-tui train`. length x batch size bounds the attention
# tensors; the sizes bound the data; threads bound TensorFlow's per-thread memory.

MODELS = ChoiceSpec("model", "transformer", ("transformer", "rnn", "lstm"), "the model to train")
LENGTH = IntSpec("length", 30, 2, 120, "digits per sequence", 60)
EPOCHS = IntSpec("epochs", 30, 1, 1000, "passes over the training data", 10)
BATCH_SIZE = IntSpec("batch_size", 64, 1, 512, "sequences per gradient step", 128)
SEED = IntSpec("seed", 0, 0, 2**31 - 1, "random seed for data and weights", 1)
THREADS = IntSpec("threads", 1, 1, 8, "TensorFlow threads, to share a lab server", 2)
TRAIN_SIZE = IntSpec("train_size", 8000, 16, 50_000, "training sequences", 4000)
TEST_SIZE = IntSpec(
    "test_size", 2000, 16, 10_000, "test sequences, on which val_acc is measured", 1000
)

TRAINING_FORM = (LENGTH, EPOCHS, BATCH_SIZE, SEED, THREADS)
"""The numbers the training lab's form asks for, in order."""


def int_argument(parser: argparse.ArgumentParser, spec: IntSpec, metavar: str = "N") -> None:
    """`--name N` with the spec's type, default and a help line naming range and example."""
    parser.add_argument(
        "--" + spec.name.replace("_", "-"),
        type=spec.parse,
        default=spec.default,
        metavar=metavar,
        help=spec.flag_help(),
    )


def choice_argument(parser: argparse.ArgumentParser, spec: ChoiceSpec) -> None:
    parser.add_argument(
        "--" + spec.name.replace("_", "-"),
        choices=spec.choices,
        default=spec.default,
        help=spec.flag_help(),
    )


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number in [low, high] that has no spec of its own."""
    return IntSpec("value", low, low, high, "", low).parse
