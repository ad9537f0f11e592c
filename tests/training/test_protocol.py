from __future__ import annotations

import json

import pytest

from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    ProtocolError,
    Started,
    decode,
    encode,
)

EVENTS = [
    Started("transformer", 14049, 30, 125, 64, 8000, 2000, 30, True, 0, 2, "/x.log"),
    BatchProgress(1, 30, 25, 125, 0.69, 0.51, 3200.0, 40.0),
    EpochEnd(1, 30, 0.69, 0.51, 0.68, 0.55, 1.4),
    AttentionSample([1, 2, 3], 0, 0.1, [[[0.5, 0.5, 0.0]] * 3]),
    Done(1.0, 0.001, 14049, 30, 38.2, "transformer", True, 30, {"val_accuracy": [0.5, 1.0]}),
    Error("ValueError: boom", ["line 1", "line 2"]),
    AttentionSummary(2000, [[[0.25, 0.5, 0.25]] * 3]),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.kind)
def test_round_trip(event: object) -> None:
    line = encode(event)  # type: ignore[arg-type]
    assert "\n" not in line
    assert json.loads(line)["event"] == event.kind  # type: ignore[attr-defined]
    assert decode(line) == event


def test_done_line_has_the_documented_keys() -> None:
    data = json.loads(encode(EVENTS[4]))
    assert {"event", "test_accuracy", "params", "epochs", "seconds"} <= set(data)
    assert data["event"] == "done" and data["params"] == 14049


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not an event object"),
        ('{"event": "mystery"}', "unknown event"),
        ('{"event": "epoch", "epoch": 1}', "epoch event lacks epochs, loss, accuracy"),
    ],
)
def test_bad_lines(line: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        decode(line)


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    line = encode(EVENTS[5])[:-1] + ', "new_field": 1}'
    assert decode(line) == EVENTS[5]


def test_run_descriptions_are_short() -> None:
    from tui_course.training.options import TrainOptions

    assert TrainOptions().describe() == "transformer"
    assert TrainOptions(position=False).describe() == "transformer, no pos"
    assert TrainOptions(model="lstm", position=False, length=60).describe() == "lstm, 60 digits"


def test_error_text_from_the_child_cannot_drive_the_terminal() -> None:
    line = encode(Error("bad \x1b[2J thing", ["\x1b]0;title\x07log line"]))
    assert decode(line) == Error("bad [2J thing", ["]0;titlelog line"])


def test_the_plain_start_line_counts_one_epoch_in_the_singular(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tui_course.commands.train import print_plain_training
    from tui_course.training.protocol import Started

    fields = dict(model="rnn", params=13721, batches=125, batch_size=64, train_size=8000)
    more = dict(test_size=2000, length=30, position=True, seed=0, threads=2)
    print_plain_training(Started(epochs=1, **fields, **more))  # type: ignore[arg-type]
    print_plain_training(Started(epochs=2, **fields, **more))  # type: ignore[arg-type]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("training rnn: 13,721 parameters, 1 epoch of 125 batches")
    assert lines[1].startswith("training rnn: 13,721 parameters, 2 epochs of 125 batches")


def test_the_terminal_bars_show_an_ended_epoch_with_all_its_batches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The child's last progress in an epoch is 100 of 125 (it reports every 25 steps, at
    most so often): the epoch's end fills the batch bar, where it once went back to 0."""
    from tui_course.commands.train import _RichTrainPrinter
    from tui_course.training.protocol import BatchProgress, EpochEnd, Started

    fields = dict(model="rnn", params=13721, batches=125, batch_size=64, train_size=8000)
    more = dict(test_size=2000, length=30, position=True, seed=0, threads=1)
    printer = _RichTrainPrinter()
    printer(Started(epochs=2, **fields, **more))  # type: ignore[arg-type]
    printer(BatchProgress(1, 2, 100, 125, 0.6, 0.6, 1000.0, 2.0))
    batches = next(task for task in printer.progress.tasks if task.description == "batches")
    assert batches.completed == 100
    printer(EpochEnd(1, 2, 0.6, 0.6, 0.6, 0.6, 1.0))
    assert (batches.completed, batches.total) == (125, 125)
    printer.progress.stop()
    assert "[" not in capsys.readouterr().err
