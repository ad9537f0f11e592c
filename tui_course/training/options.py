"""The options of a training run, shared by `attn-tui train`, the child and the TUI form."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from tui_course import specs
from tui_course.specs import int_between

__all__ = ["TrainOptions", "add_train_arguments", "int_between", "options_from_args"]


@dataclass(frozen=True)
class TrainOptions:
    """Defaults and limits come from tui_course.specs (limits keep a run inside 2 GB)."""

    model: str = specs.MODELS.default
    position: bool = True
    length: int = specs.LENGTH.default
    epochs: int = specs.EPOCHS.default
    batch_size: int = specs.BATCH_SIZE.default
    seed: int = specs.SEED.default
    threads: int = specs.THREADS.default
    train_size: int = specs.TRAIN_SIZE.default
    test_size: int = specs.TEST_SIZE.default
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


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Every training flag, with its default, range and an example in --help."""
    specs.choice_argument(parser, specs.MODELS)
    parser.add_argument(
        "--no-position",
        action="store_true",
        help="drop the position embedding: the model sees a bag of digits",
    )
    for spec in (*specs.TRAINING_FORM, specs.TRAIN_SIZE, specs.TEST_SIZE):
        specs.int_argument(parser, spec)
    parser.add_argument(
        "--steps-per-execution",
        type=int_between(1, 1000),
        default=TrainOptions.steps_per_execution,
        help=argparse.SUPPRESS,
    )
    parser.add_argument(
        "--attention-samples",
        type=int_between(0, 10),
        default=TrainOptions.attention_samples,
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
