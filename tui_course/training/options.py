"""The options of a training run, shared by `attn-tui train`, the child and the TUI form."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

# Here, not in task.py: the CLI's parser reads these names, and task.py imports NumPy.
MODELS = ("transformer", "rnn", "lstm")


@dataclass(frozen=True)
class TrainOptions:
    model: str = "transformer"
    position: bool = True
    length: int = 30
    epochs: int = 30
    batch_size: int = 64
    seed: int = 0
    threads: int = 2
    train_size: int = 8000
    test_size: int = 2000
    steps_per_execution: int = 25  # fewer trips into Python; still ~5 progress events a second
    attention_samples: int = 2

    def to_args(self) -> list[str]:
        """The command-line form, for starting the child process."""
        args = [
            "--model",
            self.model,
            "--length",
            str(self.length),
            "--epochs",
            str(self.epochs),
            "--batch-size",
            str(self.batch_size),
            "--seed",
            str(self.seed),
            "--threads",
            str(self.threads),
            "--train-size",
            str(self.train_size),
            "--test-size",
            str(self.test_size),
            "--steps-per-execution",
            str(self.steps_per_execution),
            "--attention-samples",
            str(self.attention_samples),
        ]
        return args if self.position else [*args, "--no-position"]

    def describe(self) -> str:
        """Short enough for a table row: 'transformer', 'transformer, no pos', 'lstm, 60 digits'."""
        parts = [self.model]
        if self.model == "transformer" and not self.position:
            parts.append("no pos")
        if self.length != TrainOptions.length:
            parts.append(f"{self.length} digits")
        return ", ".join(parts)


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], with a message naming the limits."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    return parse


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = TrainOptions()
    parser.add_argument("--model", choices=MODELS, default=defaults.model)
    parser.add_argument(
        "--no-position",
        action="store_true",
        help="drop the position embedding: the model sees a bag of digits",
    )
    parser.add_argument(
        "--length",
        type=int_between(2, 500),
        default=defaults.length,
        metavar="N",
        help="digits per sequence (default 30)",
    )
    parser.add_argument("--epochs", type=int_between(1, 1000), default=defaults.epochs, metavar="N")
    parser.add_argument(
        "--batch-size", type=int_between(1, 8192), default=defaults.batch_size, metavar="N"
    )
    parser.add_argument(
        "--seed", type=int_between(0, 2**31 - 1), default=defaults.seed, metavar="N"
    )
    parser.add_argument(
        "--threads",
        type=int_between(1, 64),
        default=defaults.threads,
        metavar="N",
        help="TensorFlow threads (default 2, to share a lab server)",
    )
    parser.add_argument(
        "--train-size", type=int_between(16, 1_000_000), default=defaults.train_size, metavar="N"
    )
    parser.add_argument(
        "--test-size", type=int_between(16, 1_000_000), default=defaults.test_size, metavar="N"
    )
    parser.add_argument(
        "--steps-per-execution",
        type=int_between(1, 1000),
        default=defaults.steps_per_execution,
        help=argparse.SUPPRESS,
    )
    parser.add_argument(
        "--attention-samples",
        type=int_between(0, 10),
        default=defaults.attention_samples,
        help=argparse.SUPPRESS,
    )


def options_from_args(args: argparse.Namespace) -> TrainOptions:
    return TrainOptions(
        model=args.model,
        position=not args.no_position,
        length=args.length,
        epochs=args.epochs,
        batch_size=args.batch_size,
        seed=args.seed,
        threads=args.threads,
        train_size=args.train_size,
        test_size=args.test_size,
        steps_per_execution=args.steps_per_execution,
        attention_samples=args.attention_samples,
    )
