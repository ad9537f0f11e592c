"""The events a training run reports, one JSON object per line.

One schema for the child (which writes them), the TUI panel and `attn-tui
train --json` (which read them) and the tests (which fake them).
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, ClassVar

from tui_course.content.text import strip_control


class ProtocolError(ValueError):
    """A line that is not a valid event."""


@dataclass(frozen=True)
class Waiting:
    """Every training slot of the server is taken; this run is `position` in line (1 = next).

    Through Slurm (scheduler "slurm"): the job is pending, `position` among its
    partition's pending jobs by priority, with Slurm's `reason`; `slots` is 0."""

    kind: ClassVar[str] = "waiting"
    position: int
    slots: int
    scheduler: str = "local"
    reason: str = ""
    job: int = 0


def ordinal(number: int) -> str:
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def waiting_text(event: Waiting) -> str:
    if event.scheduler == "slurm":
        return (
            f"waiting for Slurm: position {event.position}, reason"
            f" {strip_control(event.reason) or 'unknown'} (job {event.job})"
        )
    runs = "1 run" if event.slots == 1 else f"{event.slots} runs"
    return f"waiting for a training slot: {ordinal(event.position)} in line ({runs} at a time)"


@dataclass(frozen=True)
class SlotTaken:
    """This run won training slot `number` of `slots` and is starting its child now
    (TensorFlow takes several seconds to load before `started`)."""

    kind: ClassVar[str] = "slot"
    number: int
    slots: int
    waited_seconds: float = 0.0  # in line before the slot was won (0: one was free)
    job: int = 0  # through Slurm: the job that started (number and slots are 0)
    node: str = ""


def slot_text(event: SlotTaken) -> str:
    waited = f" after {event.waited_seconds:.0f} s in line" if event.waited_seconds >= 1 else ""
    if event.job:
        where = f" on {strip_control(event.node)}" if event.node else ""
        return f"Slurm job {event.job} started{where}{waited}"
    return f"got training slot {event.number} of {event.slots}{waited}"


@dataclass(frozen=True)
class Started:
    kind: ClassVar[str] = "started"
    model: str
    params: int
    epochs: int
    batches: int  # per epoch
    batch_size: int
    train_size: int
    test_size: int
    length: int
    position: bool
    seed: int
    threads: int
    log: str = ""


@dataclass(frozen=True)
class BatchProgress:
    kind: ClassVar[str] = "batch"
    epoch: int  # 1-based
    epochs: int
    batch: int  # batches done in this epoch
    batches: int
    loss: float
    accuracy: float
    samples_per_second: float
    eta_seconds: float  # -1: not known yet (the first report of a run)


@dataclass(frozen=True)
class EpochEnd:
    kind: ClassVar[str] = "epoch"
    epoch: int
    epochs: int
    loss: float
    accuracy: float
    val_loss: float
    val_accuracy: float
    seconds: float  # since training started


@dataclass(frozen=True)
class AttentionSample:
    """Trained attention of one test sequence: weights[head][query][key]."""

    kind: ClassVar[str] = "attention"
    digits: list[int]
    label: int
    prediction: float
    weights: list[list[list[float]]]


@dataclass(frozen=True)
class AttentionSummary:
    """Trained attention averaged over `sequences` test sequences: weights[head][query][key]."""

    kind: ClassVar[str] = "attention_summary"
    sequences: int
    weights: list[list[list[float]]]


@dataclass(frozen=True)
class Done:
    kind: ClassVar[str] = "done"
    test_accuracy: float
    test_loss: float
    params: int
    epochs: int
    seconds: float
    model: str
    position: bool
    length: int
    history: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Error:
    kind: ClassVar[str] = "error"
    message: str
    log_tail: list[str] = field(default_factory=list)


Event = (
    Waiting
    | SlotTaken
    | Started
    | BatchProgress
    | EpochEnd
    | AttentionSample
    | AttentionSummary
    | Done
    | Error
)
EVENT_TYPES: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        Waiting,
        SlotTaken,
        Started,
        BatchProgress,
        EpochEnd,
        AttentionSample,
        AttentionSummary,
        Done,
        Error,
    )
}


def encode(event: Event) -> str:
    """One line of JSON, `event` first."""
    return json.dumps({"event": event.kind, **asdict(event)}, separators=(",", ":"))


def decode(line: str) -> Event:
    """Parse one line; raise ProtocolError naming what is wrong."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON: {error.msg}") from None
    if not isinstance(data, dict) or "event" not in data:
        raise ProtocolError("not an event object")
    cls = EVENT_TYPES.get(data.pop("event"))
    if cls is None:
        raise ProtocolError("unknown event")
    names = {f.name for f in fields(cls)}
    missing = [
        f.name
        for f in fields(cls)
        if f.name not in data and f.default is MISSING and f.default_factory is MISSING
    ]
    if missing:
        raise ProtocolError(f"{cls.kind} event lacks {', '.join(missing)}")
    try:
        event: Event = cls(**{k: v for k, v in data.items() if k in names})
    except TypeError as error:
        raise ProtocolError(str(error)) from None
    if isinstance(event, Error):  # free text from the child's log: never let it drive a terminal
        event = Error(strip_control(event.message), [strip_control(x) for x in event.log_tail])
    return event
