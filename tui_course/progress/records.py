"""The store's rows of code checks and training runs, as plain values.

Apart from progress.store: a start reads neither, so neither is defined before the
first screen (each frozen dataclass costs Python 3.11 about a millisecond to make).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CodeCheckRow:
    """One stored code check."""

    quiz_id: str
    question_index: int  # 1-based
    code: str
    sha256: str
    outcome: str
    mistake: int | None
    cases_failed: tuple[str, ...]
    sandbox: str
    seconds: float
    created_at: str


@dataclass(frozen=True)
class TrainingRecord:
    """One finished training run as the store keeps it: plain values only (JSON-able),
    so this layer knows nothing of the training protocol."""

    source: str  # "lab" or "cli"
    options: dict[str, Any]  # TrainOptions' fields
    params: int
    test_accuracy: float
    test_loss: float
    seconds: float
    epochs: tuple[dict[str, float], ...]  # per epoch: loss, accuracy, val_loss, val_accuracy
    attention: dict[str, Any] | None = None  # the trained-attention summary, if any
    finished_at: str = ""
    id: int = 0


@dataclass(frozen=True)
class FailedTrainingRecord:
    """A training run that ended in an error (not a cancel): why, and what it had done."""

    source: str  # "lab" or "cli"
    options: dict[str, Any]
    reason: str  # the run's one-line error, e.g. the Slurm limit that ended it
    epochs: tuple[dict[str, float], ...]  # the epochs it finished
    log: str  # the run's log file
    finished_at: str = ""
    id: int = 0
