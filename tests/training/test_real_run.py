"""Real Keras runs in the child process, cut to the fewest that prove the lab: the published
run itself (1.000 with 14,049 parameters, through `attn-tui train --json`, kept in the store),
the other models' sizes (built, not trained), and a child that dies with its parent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_course.progress.store import ProgressStore
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    SlotTaken,
    Started,
    decode,
)

pytest.importorskip(
    "keras", reason="needs the 'train' extra (Keras and TensorFlow): pip install -e '.[train]'"
)
pytestmark = pytest.mark.slow


def attn_tui(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_course", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def test_the_published_run_reproduces_and_is_kept(tmp_path: Path) -> None:
    """Lesson 10's experiment as the source runs it: the source's data, 30 epochs, batch 64."""
    result = attn_tui("train", "--json", "--data-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""  # TensorFlow's chatter went to the log file
    events = [decode(line) for line in result.stdout.splitlines()]  # stdout holds only events
    slot, started, done = events[0], events[1], events[-1]
    # the test's own slots folder (tests/conftest.py), one slot: won at once
    assert isinstance(slot, SlotTaken) and (slot.number, slot.slots) == (1, 1)
    assert isinstance(started, Started) and started.params == 14_049
    assert (started.epochs, started.batches, started.length) == (30, 125, 30)
    assert (started.train_size, started.test_size) == (8000, 2000)
    assert isinstance(done, Done) and done.params == 14_049 and done.epochs == 30
    assert f"{done.test_accuracy:.3f}" == "1.000"  # the published result
    epochs = [e for e in events if isinstance(e, EpochEnd)]
    assert [e.epoch for e in epochs] == list(range(1, 31))
    assert epochs[-1].val_accuracy == pytest.approx(done.test_accuracy)
    batches = [e for e in events if isinstance(e, BatchProgress)]
    assert batches and batches[0].eta_seconds == -1.0  # nothing measured yet: no guess
    assert all(e.eta_seconds >= 0 for e in batches[1:])
    samples = [e for e in events if isinstance(e, AttentionSample)]
    assert len(samples) == 2 and {s.label for s in samples} == {0, 1}
    weights = samples[0].weights
    assert (len(weights), len(weights[0]), len(weights[0][0])) == (4, 30, 30)
    assert sum(weights[0][29]) == pytest.approx(1.0, abs=1e-3)
    (summary,) = [e for e in events if isinstance(e, AttentionSummary)]
    assert summary.sequences == 2000  # every test sequence, averaged in the child
    assert sum(summary.weights[3][0]) == pytest.approx(1.0, abs=1e-3)
    log = Path(started.log)
    assert log.parent == tmp_path / "logs" and log.stat().st_mode & 0o777 == 0o600

    with ProgressStore(tmp_path) as store:
        (kept,) = store.training_runs()
    assert (kept.source, kept.params, kept.test_accuracy) == ("cli", 14_049, done.test_accuracy)
    assert kept.options["model"] == "transformer" and kept.options["epochs"] == 30
    assert [e["val_accuracy"] for e in kept.epochs] == [e.val_accuracy for e in epochs]
    assert kept.attention is not None and len(kept.attention["heads"]) == 4

    listed = attn_tui("progress", "--data-dir", str(tmp_path), timeout=120)
    assert listed.returncode == 0, listed.stderr
    table = listed.stdout.splitlines()
    row = next(line for line in table if " transformer " in line)
    assert row.split()[2:7] == ["transformer", "30", "1.000", "14,049", f"{done.seconds:.1f}s"]
    assert row.split()[7].endswith("/4")  # heads linking the first and last digit
    report = json.loads(
        attn_tui("progress", "--format", "json", "--data-dir", str(tmp_path)).stdout
    )
    assert report["training_runs"][0]["test_accuracy"] == done.test_accuracy


def test_a_second_run_with_the_same_seed_learns_exactly_the_same(tmp_path: Path) -> None:
    """Five epochs twice, on TensorFlow's one default thread: the same history to the last
    digit, so a student who reruns a seed sees the figures the lesson quotes."""
    runs = []
    for _ in range(2):
        result = attn_tui("train", "--json", "--epochs", "5", "--data-dir", str(tmp_path))
        assert result.returncode == 0, result.stderr[-2000:]
        done = decode(result.stdout.splitlines()[-1])
        assert isinstance(done, Done)
        runs.append(done)
    assert runs[1].history == runs[0].history
    assert runs[1].test_accuracy == runs[0].test_accuracy
    assert not (tmp_path / "compile-cache").exists()  # nothing compiled is kept any more


def test_every_model_has_its_size() -> None:
    """Built in one child, not trained: the sizes the lesson and the lab quote."""
    script = (
        "import json\n"
        "from tui_course.training.task import build_model\n"
        "sizes = {\n"
        "    'transformer': build_model('transformer')[0].count_params(),\n"
        "    'no position': build_model('transformer', position=False)[0].count_params(),\n"
        "    'rnn': build_model('rnn')[0].count_params(),\n"
        "    'lstm': build_model('lstm')[0].count_params(),\n"
        "    '12 digits': build_model('transformer', length=12)[0].count_params(),\n"
        "}\n"
        "print(json.dumps(sizes))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.splitlines()[-1]) == {
        "transformer": 14_049,
        "no position": 14_049 - 30 * 32,
        "rnn": 13_721,
        "lstm": 13_917,
        "12 digits": 14_049 - 18 * 32,
    }


def test_child_dies_with_its_parent(tmp_path: Path) -> None:
    """A parent killed with SIGKILL (a dropped SSH session) leaves no training behind."""
    log = tmp_path / "log.txt"
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-m', 'tui_course.training', '--epochs', '50',"
        f" '--log', {str(log)!r}], stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    try:
        # The child makes its log after it has asked to die with its parent: wait for that.
        wait_until(log.exists, 120)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    wait_until(lambda: gone(pid), 60)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] == "Z"  # only the zombie is left


def wait_until(condition: object, seconds: float) -> None:
    """Poll a condition (a bound, not a measurement: a busy machine only makes it slower)."""
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("the training child outlived its parent")
        time.sleep(0.05)
