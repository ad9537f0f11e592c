"""The training lab's rules on its state object, and the words the lab and the CLI share:
no Textual, no child process, milliseconds each."""

from __future__ import annotations

import pytest

from tui_course.render.training import event_lines, status_text
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    AttentionSample,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    SlotTaken,
    Started,
    Waiting,
    decode,
    encode,
)
from tui_course.views.training import Phase, TrainingLab

OPTIONS = TrainOptions(epochs=2)
STARTED = Started("transformer", 14_049, 2, 125, 64, 8000, 2000, 30, True, 0, 2, "/d/x.log")
EPOCH = EpochEnd(1, 2, 0.69, 0.55, 0.68, 0.56, 3.0)
BATCH = BatchProgress(2, 2, 50, 125, 0.3, 0.9, 5000.0, 65.0)
DONE = Done(1.0, 0.001, 14_049, 2, 38.9, "transformer", True, 30)


def a_run() -> TrainingLab:
    return TrainingLab().start(OPTIONS)


def test_a_slot_replaces_the_waiting_line_at_once() -> None:
    lab = a_run().apply(Waiting(position=1, slots=2))
    assert status_text(lab) == (
        "Waiting for a training slot: 1st in line (2 runs at a time). ctrl+x cancels."
    )
    lab = lab.apply(SlotTaken(number=2, slots=2, waited_seconds=14.2))
    assert lab.run is not None and lab.run.phase is Phase.STARTING
    assert status_text(lab) == (
        "Got training slot 2 of 2 after 14 s in line: starting"
        " (TensorFlow takes a few seconds to load)."
    )
    assert event_lines(SlotTaken(2, 2, 14.2)) == [
        "got training slot 2 of 2 after 14 s in line: starting"
        " (TensorFlow takes a few seconds to load)"
    ]
    assert decode(encode(SlotTaken(2, 2, 14.2))) == SlotTaken(2, 2, 14.2)
    assert encode(SlotTaken(1, 1)).startswith('{"event":"slot",')


def test_lab_and_cli_say_the_same_words() -> None:
    """The lab's status is the CLI's line, capitalised: 'Done: ...' is gone."""
    lab = a_run().apply(STARTED)
    assert status_text(lab) == "Training transformer: 14,049 parameters, 2 epochs of 125 batches."
    assert event_lines(STARTED) == [
        "training transformer: 14,049 parameters, 2 epochs of 125 batches (log: /d/x.log)"
    ]
    lab = lab.apply(EPOCH).apply(BATCH)
    assert status_text(lab) == (
        "epoch 2/2 | batch 50/125 | ETA 1:05 | 5,000 samples/s\n"
        "loss 0.300 acc 0.900 | val_loss 0.680 val_acc 0.560"
    )
    lab = lab.apply(DONE)
    assert status_text(lab) == "Test accuracy 1.000 with 14,049 parameters in 38.9 s."
    assert event_lines(DONE) == ["test accuracy 1.000 with 14,049 parameters in 38.9 s"]
    assert event_lines(BATCH) == []  # a pipe gets one line per epoch, not per batch
    first = a_run().apply(STARTED).apply(BatchProgress(1, 2, 25, 125, 0.7, 0.5, 4000.0, -1.0))
    assert "ETA -:--" in status_text(first)  # not measured yet: no guess


def test_each_change_is_a_new_state_and_the_old_one_stays() -> None:
    before = a_run().apply(STARTED)
    after = before.apply(EPOCH)
    assert before.run is not None and before.run.epochs == ()
    assert after.run is not None and after.run.epochs == (EPOCH,)
    with pytest.raises(AttributeError):
        after.run.phase = Phase.DONE  # type: ignore[misc]


def test_only_the_first_attention_sample_is_drawn() -> None:
    one = AttentionSample([1, 2], 1, 0.9, [[[1.0, 0.0], [0.5, 0.5]]])
    two = AttentionSample([3, 4], 0, 0.1, [[[1.0, 0.0], [0.5, 0.5]]])
    lab = a_run().apply(STARTED).apply(one).apply(two)
    assert lab.run is not None and lab.run.sample is one


def test_events_after_the_end_change_nothing() -> None:
    lab = a_run().apply(STARTED).cancel()
    assert status_text(lab) == "Cancelled. The training process has been stopped."
    assert lab.apply(DONE) == lab and not lab.running
    waiting = a_run().apply(Waiting(3, 1)).cancel()
    assert status_text(waiting) == "Cancelled. You left the line for a training slot."


def test_a_failure_quotes_the_child_and_a_second_start_waits() -> None:
    lab = a_run().apply(STARTED)
    assert lab.start(TrainOptions(model="rnn")) == lab  # one run at a time
    lab = lab.apply(Error("ResourceExhaustedError: out of memory", ["OOM"]))
    assert status_text(lab) == "Training failed: ResourceExhaustedError: out of memory"
    assert not lab.running
    assert lab.start(TrainOptions(model="rnn")) is lab  # the child is still being let go
    lab = lab.released(1)
    again = lab.start(TrainOptions(model="rnn"))
    assert again.run is not None and again.run.options.model == "rnn"
    assert (lab.run is not None and lab.run.number, again.run.number) == (1, 2)
    assert again.run.phase is Phase.LAUNCHING
    assert status_text(again) == "Starting rnn (TensorFlow takes a few seconds to load)..."


def test_a_refused_start_and_a_blocked_lab() -> None:
    assert status_text(TrainingLab()).startswith("Ready.")
    refused = TrainingLab().refuse("Cannot start: epochs must be a whole number from 1 to 1,000.")
    assert status_text(refused) == "Cannot start: epochs must be a whole number from 1 to 1,000."
    blocked = TrainingLab(blocked="Training needs the 'train' extra.")
    assert blocked.start(OPTIONS) == blocked and status_text(blocked) == blocked.blocked


def test_slurms_waiting_and_start_say_slurms_words() -> None:
    pending = Waiting(2, 0, scheduler="slurm", reason="Priority", job=41)
    lab = a_run().apply(pending)
    assert status_text(lab) == (
        "Waiting for Slurm: position 2, reason Priority (job 41). ctrl+x cancels."
    )
    assert status_text(lab.cancel()) == "Cancelled. Slurm job 41 was cancelled before it started."
    started = lab.apply(SlotTaken(0, 0, 12.4, job=41, node="node7"))
    assert status_text(started) == (
        "Slurm job 41 started on node7 after 12 s in line: starting (TensorFlow takes a few"
        " seconds to load)."
    )


def test_a_finished_run_holds_the_lab_until_the_panel_lets_go_of_its_child() -> None:
    """Done arrives before the child has exited and the run is recorded: a new run started
    then cancelled the worker that was about to keep the finished run's record."""
    done = a_run().apply(STARTED).apply(DONE)
    assert not done.running and done.child_held and not done.may_start
    assert done.start(OPTIONS) is done
    assert done.refuse("Cannot start: epochs must be a whole number from 1 to 1,000.") is done
    assert done.released(2) is done  # another run's worker: not this one
    free = done.released(1)
    assert not free.child_held and free.may_start and free.released(1) is free
    assert free.start(OPTIONS).run is not None and free.start(OPTIONS).run.number == 2
    blocked = TrainingLab(blocked="Training needs the 'train' extra.")
    assert not blocked.may_start and blocked.refuse("Cannot start: no.") is blocked
    empty = TrainingLab()
    assert empty.released(1) is empty  # no run: nothing to let go
