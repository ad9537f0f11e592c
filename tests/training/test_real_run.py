"""Real (short) Keras runs in the child process: the event stream and the parameter counts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Started,
    decode,
)
from tui_course.training.runner import TrainingRun

pytest.importorskip(
    "keras", reason="needs the 'train' extra (Keras and TensorFlow): pip install -e '.[train]'"
)


async def test_default_model_event_stream(tmp_path: Path) -> None:
    options = TrainOptions(epochs=2, train_size=512, test_size=128)
    run = TrainingRun.for_options(options, tmp_path)
    events = [event async for event in run.events()]
    started, done = events[0], events[-1]
    assert isinstance(started, Started) and started.params == 14_049
    assert (started.epochs, started.batches, started.length) == (2, 8, 30)
    assert isinstance(done, Done) and done.params == 14_049 and done.epochs == 2
    assert 0.0 <= done.test_accuracy <= 1.0
    epochs = [e for e in events if isinstance(e, EpochEnd)]
    assert [e.epoch for e in epochs] == [1, 2]
    assert epochs[-1].val_accuracy == pytest.approx(done.test_accuracy)
    assert any(isinstance(e, BatchProgress) for e in events)
    samples = [e for e in events if isinstance(e, AttentionSample)]
    assert len(samples) == 2 and {s.label for s in samples} == {0, 1}
    weights = samples[0].weights
    assert (len(weights), len(weights[0]), len(weights[0][0])) == (4, 30, 30)
    assert sum(weights[0][29]) == pytest.approx(1.0, abs=1e-3)
    (summary,) = [e for e in events if isinstance(e, AttentionSummary)]
    assert summary.sequences == 128  # every test sequence, averaged in the child
    assert (len(summary.weights), len(summary.weights[3]), len(summary.weights[3][0])) == (
        4,
        30,
        30,
    )
    assert sum(summary.weights[3][0]) == pytest.approx(1.0, abs=1e-3)
    log = Path(started.log)
    assert log.parent == tmp_path / "logs" and log.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("args", "params"),
    [
        (["--no-position"], 14_049 - 30 * 32),
        (["--model", "rnn"], 13_721),
        (["--model", "lstm"], 13_917),
        (["--length", "12"], 14_049 - 18 * 32),
    ],
)
def test_variants_report_their_size(tmp_path: Path, args: list[str], params: int) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tui_course.training",
            *args,
            "--epochs",
            "1",
            "--train-size",
            "64",
            "--test-size",
            "16",
            "--attention-samples",
            "0",
            "--log",
            str(tmp_path / "log.txt"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    events = [decode(line) for line in result.stdout.splitlines()]  # stdout holds only events
    assert isinstance(events[-1], Done) and events[-1].params == params
    assert result.stderr == ""  # TensorFlow's chatter went to the log file
    assert (tmp_path / "log.txt").exists()


def train_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`attn-tui train` on a small data set (128 training rows, 32 test rows)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tui_course",
            "train",
            *args,
            "--train-size",
            "128",
            "--test-size",
            "32",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_cli_train_json_last_line_is_done(tmp_path: Path) -> None:
    result = train_cli(tmp_path, "--json", "--epochs", "1")
    assert result.returncode == 0, result.stderr
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["event"] == "done" and last["params"] == 14_049 and last["epochs"] == 1
    assert {"test_accuracy", "seconds"} <= set(last)


def test_cli_train_plain_output_has_one_line_per_epoch(tmp_path: Path) -> None:
    result = train_cli(tmp_path, "--epochs", "2")
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("training transformer: 14,049 parameters, 2 epochs of 2 batches")
    assert [line.split()[1] for line in lines[1:3]] == ["1/2", "2/2"]
    assert lines[3].startswith("Trained attention averaged over 32 test sequences")
    assert [line.split(":")[0] for line in lines[4:8]] == [f"  head {h}" for h in (1, 2, 3, 4)]
    assert lines[-1].startswith("test accuracy ") and "14,049 parameters" in lines[-1]


def test_child_dies_with_its_parent(tmp_path: Path) -> None:
    """A parent killed with SIGKILL (a dropped SSH session) leaves no training behind."""
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-m', 'tui_course.training', '--epochs', '50',"
        f" '--log', {str(tmp_path / 'log.txt')!r}], stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
        "import time; time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    time.sleep(1.0)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            return  # exited, only the zombie entry is left for init to reap
        time.sleep(0.1)
    raise AssertionError("the training child outlived its parent")
