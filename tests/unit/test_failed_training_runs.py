"""A training run that ends in an error is kept as failed, with why, its epochs and its log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tui_course.cli import main
from tui_course.commands.train import RunKeeper
from tui_course.progress.schema import MIGRATIONS
from tui_course.progress.store import DB_NAME, SCHEMA_VERSION, ProgressStore
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import EpochEnd, Error

LIMIT = "Slurm job 12 was killed for using more memory than its limit (800 MB, mem in ...)"


def test_the_cli_keeps_a_failed_run_and_not_a_cancelled_one(data_dir: Path) -> None:
    keeper = RunKeeper(TrainOptions(epochs=5), "/data/logs/training-x.log")
    keeper.see(EpochEnd(1, 5, 0.7, 0.5, 0.69, 0.52, 3.0))
    keeper.see(Error(LIMIT))
    keeper.save(data_dir)
    RunKeeper(TrainOptions(epochs=5)).save(data_dir)  # a cancel: no event, nothing kept
    with ProgressStore(data_dir) as store:
        (failed,) = store.failed_training_runs()
        assert store.training_runs() == []  # the comparison table holds finished runs only
    assert failed.reason == LIMIT and failed.source == "cli"
    assert failed.options["epochs"] == 5 and failed.log == "/data/logs/training-x.log"
    assert failed.epochs == (
        {"loss": 0.7, "accuracy": 0.5, "val_loss": 0.69, "val_accuracy": 0.52, "seconds": 3.0},
    )


def test_progress_lists_failed_runs_and_reset_forgets_them(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keeper = RunKeeper(TrainOptions(epochs=5), "/l.log")
    keeper.see(Error(LIMIT))
    keeper.save(data_dir)
    assert main(["progress", "--data-dir", str(data_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("Failed training runs (1):")
    assert lines[at + 1].endswith(f"after 0 epoch(s): {LIMIT} (log: /l.log)")
    with ProgressStore(data_dir) as store:
        store.forget_everything()
        assert store.failed_training_runs() == []


def test_a_file_of_schema_4_gains_the_table(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / DB_NAME)
    conn.executescript("".join(MIGRATIONS[:4]) + "PRAGMA user_version = 4;")
    conn.close()
    with ProgressStore(data_dir) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
        assert store.failed_training_runs() == []
