"""A finished run as the progress store keeps it, from the lab's state or the CLI's events.

One conversion for both, so a run trained from a shell and one trained in the lab
land in the same comparison table with the same fields.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from datetime import UTC, datetime
from typing import Any

from tui_course.progress.records import FailedTrainingRecord, TrainingRecord
from tui_course.training.findings import AttentionFindings, HeadFinding, find_in_attention
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import AttentionSummary, Done, EpochEnd, Error

EPOCH_KEYS = ("loss", "accuracy", "val_loss", "val_accuracy", "seconds")


def training_record(
    source: str,
    options: TrainOptions,
    epochs: tuple[EpochEnd, ...] | list[EpochEnd],
    summary: AttentionSummary | None,
    done: Done,
) -> TrainingRecord:
    findings = attention_findings(summary)
    return TrainingRecord(
        source=source,
        options=asdict(options),
        params=done.params,
        test_accuracy=done.test_accuracy,
        test_loss=done.test_loss,
        seconds=done.seconds,
        epochs=tuple({key: float(getattr(e, key)) for key in EPOCH_KEYS} for e in epochs),
        attention=None if findings is None else asdict(findings),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def failed_training_record(
    source: str,
    options: TrainOptions,
    epochs: tuple[EpochEnd, ...] | list[EpochEnd],
    error: Error,
    log: str,
) -> FailedTrainingRecord:
    return FailedTrainingRecord(
        source=source,
        options=asdict(options),
        reason=error.message,
        epochs=tuple({key: float(getattr(e, key)) for key in EPOCH_KEYS} for e in epochs),
        log=log,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def attention_findings(summary: AttentionSummary | None) -> AttentionFindings | None:
    if summary is None:
        return None
    try:
        return find_in_attention(summary.weights, summary.sequences)
    except ValueError:
        return None


def record_options(record: TrainingRecord) -> TrainOptions:
    """The run's options; keys a later attn-tui dropped are ignored, and missing ones or
    ones of the wrong type (a store edited by hand) take the default."""
    defaults = TrainOptions()
    kept: dict[str, Any] = {}
    for option in fields(TrainOptions):
        value = record.options.get(option.name)
        default = getattr(defaults, option.name)
        if type(value) is type(default):
            kept[option.name] = value
    return TrainOptions(**kept)


def record_findings(record: TrainingRecord) -> AttentionFindings | None:
    data: dict[str, Any] | None = record.attention
    if not data:
        return None
    try:
        heads = tuple(HeadFinding(**head) for head in data["heads"])
        return AttentionFindings(int(data["length"]), int(data["sequences"]), heads)
    except (KeyError, TypeError, ValueError):
        return None
