"""Every word the training lab and `attn-tui train` say about a run, in one place.

The lab draws a TrainingLab state (tui_course.views.training) with these functions and
the CLI prints its events with the same ones, so both say the same thing. Plain text
only (ASCII apart from the data's own digits), so it reads the same with NO_COLOR and in
--ascii mode.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from tui_course.progress.records import TrainingRecord
from tui_course.render.plot import line_plot
from tui_course.text.safe import clean, one_line, path_text
from tui_course.training.findings import AttentionFindings, describe_findings, find_in_attention
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    Event,
    SlotTaken,
    Started,
    Waiting,
    slot_text,
    waiting_text,
)
from tui_course.training.record import record_findings, record_options
from tui_course.training.task import EXPECTED_POSITIVE_RATE, Dataset, positive_rate
from tui_course.views.training import Phase, TrainingLab, TrainingRunState

READY = "Ready. The defaults are the lesson's model: 30 epochs, batch 64."
VAL_NOTE = (
    "val acc is the accuracy on the test sequences, which the model never trains on "
    "(Keras calls them validation data); the final test accuracy is the same measurement."
)


def capital(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def sentence(phrase: str) -> str:
    """A CLI phrase as a line of the lab: same words, a capital and a full stop."""
    text = capital(phrase)
    return text if text.endswith(".") else text + "."


def format_eta(seconds: float) -> str:
    """m:ss; a negative time is one not measured yet."""
    if seconds < 0:
        return "-:--"
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


# one phrase per event


def waiting_phrase(event: Waiting) -> str:
    return waiting_text(event)


def slot_phrase(event: SlotTaken) -> str:
    return f"{slot_text(event)}: starting (TensorFlow takes a few seconds to load)"


def launching_phrase(options: TrainOptions) -> str:
    return f"starting {options.describe()} (TensorFlow takes a few seconds to load)..."


def started_phrase(event: Started) -> str:
    model = event.model if event.position else f"{event.model} without positions"
    return (
        f"training {model}: {event.params:,} parameters, {_count(event.epochs, 'epoch')}"
        f" of {_count(event.batches, 'batch', 'batches')}"
    )


def _count(number: int, one: str, many: str = "") -> str:
    return f"{number:,} {one if number == 1 else many or one + 's'}"


def batch_phrase(event: BatchProgress) -> str:
    return (
        f"epoch {event.epoch}/{event.epochs} | batch {event.batch}/{event.batches}"
        f" | ETA {format_eta(event.eta_seconds)} | {event.samples_per_second:,.0f} samples/s"
    )


def metrics_phrase(event: BatchProgress, last: EpochEnd | None) -> str:
    validation = f" | val_loss {last.val_loss:.3f} val_acc {last.val_accuracy:.3f}" if last else ""
    return f"loss {event.loss:.3f} acc {event.accuracy:.3f}{validation}"


def epoch_phrase(event: EpochEnd) -> str:
    return (
        f"epoch {event.epoch:>3}/{event.epochs}  loss {event.loss:.4f}  "
        f"acc {event.accuracy:.4f}  val_loss {event.val_loss:.4f}  "
        f"val_acc {event.val_accuracy:.4f}  {event.seconds:6.1f} s"
    )


def result_phrase(test_accuracy: float, params: int, seconds: float) -> str:
    return f"test accuracy {test_accuracy:.3f} with {params:,} parameters in {seconds:.1f} s"


def done_phrase(event: Done) -> str:
    return result_phrase(event.test_accuracy, event.params, event.seconds)


def finished_notice(record: TrainingRecord) -> str:
    """The notice shown wherever the student is when a lab run ends."""
    model = record_options(record).describe()
    result = result_phrase(record.test_accuracy, record.params, record.seconds)
    return f"Training finished ({model}): {result}."


def failure_phrase(event: Error) -> str:
    return f"training failed: {one_line(event.message)}"


def log_tail_lines(event: Error) -> list[str]:
    if not event.log_tail:
        return []
    return ["Last lines of the log:", *(f"  {one_line(line)}" for line in event.log_tail)]


def findings_lines(summary: AttentionSummary | AttentionFindings | None) -> list[str]:
    """What the trained attention does, computed from the run's averaged weights."""
    if summary is None:
        return []
    if isinstance(summary, AttentionFindings):
        return describe_findings(summary)
    try:
        return describe_findings(find_in_attention(summary.weights, summary.sequences))
    except ValueError as error:
        return [f"No attention summary: {error}"]


def sample_title(sample: AttentionSample) -> str:
    verdict = "the same" if sample.label else "different"
    return (
        f"Trained attention for one test sequence whose first and last digits are"
        f" {verdict} (model says {sample.prediction:.2f}), mean of the heads; rows are"
        f" query positions, columns key positions (position:digit)."
    )


def sample_labels(sample: AttentionSample) -> list[str]:
    return [f"{i + 1}:{digit}" for i, digit in enumerate(sample.digits)]


def sample_weights(sample: AttentionSample) -> NDArray[np.float64]:
    weights: NDArray[np.float64] = np.asarray(sample.weights, dtype=np.float64).mean(axis=0)
    return weights


def event_lines(event: Event) -> list[str]:
    """What `attn-tui train` prints for an event on a pipe (no progress bars): one line per
    epoch, nothing per batch. Errors are not here: the CLI writes them to stderr."""
    match event:
        case Waiting():
            return [f"{waiting_phrase(event)}, ctrl+c to leave"]
        case SlotTaken():
            return [slot_phrase(event)]
        case Started():
            # the data dir (in the log's path) may hold escape codes
            return [f"{started_phrase(event)} (log: {path_text(event.log)})"]
        case EpochEnd():
            return [epoch_phrase(event)]
        case AttentionSummary():
            return findings_lines(event)
        case Done():
            return [done_phrase(event)]
    return []


# the lab's screen, from its state


def estimate_text(lab: TrainingLab) -> str:
    """Under the form, before a run: how long the run as set should take."""
    if lab.running or lab.blocked or lab.draft is None:
        return ""
    phrase = estimate_phrase(lab.draft, lab.history)
    return sentence(f"next run: {phrase}") if phrase else ""


def status_text(lab: TrainingLab) -> str:
    """The line (or two) under the form."""
    if lab.blocked:
        return clean(lab.blocked)
    run = lab.run
    if lab.notice or run is None:
        return clean(lab.notice) if lab.notice else READY
    return run_status(run)


def run_status(run: TrainingRunState) -> str:
    match run.phase:
        case Phase.LAUNCHING:
            return sentence(launching_phrase(run.options))
        case Phase.WAITING if run.waiting is not None:
            return f"{sentence(waiting_phrase(run.waiting))} ctrl+x cancels."
        case Phase.STARTING if run.slot is not None:
            return sentence(slot_phrase(run.slot))
        case Phase.TRAINING if run.progress is not None:
            last = run.epochs[-1] if run.epochs else None
            return f"{batch_phrase(run.progress)}\n{metrics_phrase(run.progress, last)}"
        case Phase.TRAINING if run.started is not None:
            return sentence(started_phrase(run.started))
        case Phase.DONE if run.done is not None:
            return sentence(done_phrase(run.done))
        case Phase.FAILED if run.error is not None:
            return capital(failure_phrase(run.error))  # the child's own words end it
        case Phase.CANCELLED:
            if run.left_the_line and run.waiting is not None and run.waiting.job:
                return f"Cancelled. Slurm job {run.waiting.job} was cancelled before it started."
            if run.left_the_line:
                return "Cancelled. You left the line for a training slot."
            return "Cancelled. The training process has been stopped."
    return sentence(launching_phrase(run.options))


def curves_text(epochs: Sequence[EpochEnd], total: int, width: int) -> str:
    """Accuracy, then loss, per finished epoch (train and val), growing from the left."""
    if not epochs:
        return ""
    plot_width = max(20, width - 8)
    accuracy = line_plot(
        {
            "train acc": [e.accuracy for e in epochs],
            "val acc": [e.val_accuracy for e in epochs],
        },
        width=plot_width,
        height=7,
        low=0.4,
        high=1.0,
        total=total,
    )
    top = max(max(e.loss for e in epochs), max(e.val_loss for e in epochs), 0.01)
    loss = line_plot(
        {"train loss": [e.loss for e in epochs], "val loss": [e.val_loss for e in epochs]},
        width=plot_width,
        height=5,
        low=0.0,
        high=top,
        total=total,
    )
    return f"accuracy per epoch\n{accuracy}\n\nloss per epoch\n{loss}"


@dataclass(frozen=True)
class TrainingCurves:
    """The curves as a renderable that fits whatever width it is given."""

    epochs: tuple[EpochEnd, ...]
    total: int

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(curves_text(self.epochs, self.total, options.max_width), no_wrap=True)


def seconds_per_epoch(record: TrainingRecord) -> float:
    return record.seconds / max(len(record.epochs), 1)


def runs_table(records: Sequence[TrainingRecord], width: int = 80) -> str:
    """Every kept run, newest last. Narrow screens drop the date, then the attention links,
    then the epochs, then cut the model's description."""
    if not records:
        empty = "No finished runs yet: each one you finish (here or with attn-tui train) is kept."
        return "\n".join(textwrap.wrap(empty, width))
    names = [one_line(record_options(record).describe()) for record in records]
    numbers = 8 + 1 + 7 + 1 + 7  # test acc, params, time
    model = min(max(len("model"), *(len(name) for name in names)), 32)
    show_epochs = width >= model + 1 + numbers + 7
    show_links = show_epochs and width >= model + 1 + numbers + 7 + 6
    show_when = show_links and width >= model + 1 + numbers + 7 + 6 + 13
    model = max(min(model, width - 1 - numbers - (7 if show_epochs else 0)), 5)
    when_head = f"{'finished':<11}  " if show_when else ""
    epochs_head = f" {'epochs':>6}" if show_epochs else ""
    links_head = f" {'links':>5}" if show_links else ""
    lines = [
        *textwrap.wrap("Runs kept (this and earlier sessions, lab and attn-tui train):", width),
        f"{when_head}{'model':<{model}}{epochs_head} {'test acc':>8} {'params':>7} {'time':>7}"
        f"{links_head}",
    ]
    for record, name in zip(records, names, strict=True):
        when = f"{record.finished_at[5:16].replace('T', ' '):<11}  " if show_when else ""
        epochs = f" {len(record.epochs):>6}" if show_epochs else ""
        lines.append(
            f"{when}{name[:model]:<{model}}{epochs} {record.test_accuracy:>8.3f}"
            f" {record.params:>7,} {record.seconds:>6.1f}s"
            + (f" {links_cell(record):>5}" if show_links else "")
        )
    if show_links:
        lines.extend(
            textwrap.wrap(
                "links: heads in which every position mixes the first and the last digit"
                " (from the run's trained attention; - for rnn and lstm).",
                width,
            )
        )
    for line in speed_lines(records):
        lines.extend(textwrap.wrap(line, width, subsequent_indent="  "))
    return "\n".join(lines)


def links_cell(record: TrainingRecord) -> str:
    findings = record_findings(record)
    return "-" if findings is None else f"{findings.tying_heads}/{len(findings.heads)}"


def speed_lines(records: Sequence[TrainingRecord]) -> list[str]:
    """How long an epoch took, per model, in the runs above: the time a comparison costs."""
    latest: dict[str, TrainingRecord] = {}
    for record in records:
        latest[record_options(record).model] = record
    if not latest:
        return []
    parts = []
    for model, record in latest.items():
        rows = record_options(record).train_size
        parts.append(f"{one_line(model)} {seconds_per_epoch(record):.1f} s ({rows:,} rows)")
    return ["Time per epoch in your latest runs: " + ", ".join(parts) + "."]


def estimate_phrase(options: TrainOptions, records: Sequence[TrainingRecord]) -> str:
    """The time the chosen run should take, from the latest kept run of the same model."""
    same = [r for r in records if record_options(r).model == options.model]
    if not same:
        return ""
    last = same[-1]
    rows = max(record_options(last).train_size, 1)
    length = max(record_options(last).length, 1)
    scale = options.train_size / rows * options.length / length
    seconds = seconds_per_epoch(last) * scale * options.epochs
    return (
        f"about {format_eta(seconds)} for {options.epochs} epochs,"
        f" from your last {options.model} run"
    )


def data_lines(data: Dataset, seed: int) -> list[str]:
    """The lab's data set, counted: how many rows are "same" (lesson 10's data block)."""
    n_train, n_test = len(data.y_train), len(data.y_test)
    test = positive_rate(data.y_test)
    rows = [
        ("training rows", int(data.y_train.sum()), n_train, positive_rate(data.y_train)),
        ("test rows", int(data.y_test.sum()), n_test, test),
    ]
    lines = [
        f"Drawn just now by default_rng({seed}): {n_train:,} training and {n_test:,} test rows",
        f"of {data.x_train.shape[1]} digits each.",
        'Rows whose first and last digits are the same ("same"):',
    ]
    lines += [
        f"  {name:<14} {same:>6,} of {total:<7,} {rate:6.1%}" for name, same, total, rate in rows
    ]
    lines.append(
        f"  {'expected':<14} {'0.5 + 0.5 / 9':<17} {EXPECTED_POSITIVE_RATE:6.1%}  (not 50%)"
    )
    lines.append(f'Always answering "same" scores {test:.1%} on these test rows.')
    return lines
