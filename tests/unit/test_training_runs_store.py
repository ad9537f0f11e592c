"""Finished training runs in the progress store: kept across sessions, migrated into, reset."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tui_course.progress.records import TrainingRecord
from tui_course.progress.schema import MIGRATIONS
from tui_course.progress.store import DB_NAME, SCHEMA_VERSION, ProgressStore
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import AttentionSummary, Done, EpochEnd
from tui_course.training.record import record_findings, record_options, training_record


def a_record() -> TrainingRecord:
    epochs = [
        EpochEnd(n, 2, 0.7 / n, 0.5 + 0.2 * n, 0.6 / n, 0.5 + 0.25 * n, 1.5 * n) for n in (1, 2)
    ]
    tied = [[0.45, 0.05, 0.05, 0.0, 0.45]] * 5  # both ends over twice an even share
    summary = AttentionSummary(sequences=16, weights=[tied, tied])
    done = Done(1.0, 0.01, 14_049, 2, 3.0, "transformer", True, 5)
    return training_record("lab", TrainOptions(epochs=2, length=5), epochs, summary, done)


def test_a_run_is_kept_whole_and_read_back_in_a_later_session(data_dir: Path) -> None:
    record = a_record()
    with ProgressStore(data_dir) as store:
        assert store.record_training_run(record) == 1
    with ProgressStore(data_dir) as store:
        (kept,) = store.training_runs()
    assert kept.id == 1 and kept.finished_at == record.finished_at
    assert record_options(kept) == TrainOptions(epochs=2, length=5)
    assert kept.epochs == record.epochs and kept.epochs[1]["val_accuracy"] == 1.0
    findings = record_findings(kept)
    assert findings is not None and findings.tying_heads == 2 and findings.sequences == 16


def test_a_file_from_before_training_runs_gains_the_table_and_keeps_its_rows(
    data_dir: Path,
) -> None:
    """A file made by every migration before the one that adds training_runs."""
    step = next(i for i, script in enumerate(MIGRATIONS) if "training_runs" in script)
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / DB_NAME)
    conn.executescript("".join(MIGRATIONS[:step]) + f"PRAGMA user_version = {step};")
    conn.execute("INSERT INTO settings VALUES ('last_opened', 'digit-lab')")
    conn.commit()
    conn.close()
    with ProgressStore(data_dir) as store:
        assert store.notice is None
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.get_setting("last_opened") == "digit-lab"
        assert store.training_runs() == []
        store.record_training_run(a_record())
        assert len(store.training_runs()) == 1


def test_reset_forgets_training_runs_and_a_damaged_row_is_skipped(data_dir: Path) -> None:
    with ProgressStore(data_dir) as store:
        store.record_training_run(a_record())
        store.record_training_run(a_record())
        store._conn.execute("UPDATE training_runs SET epochs = '{not json' WHERE id = 1")
        assert [r.id for r in store.training_runs()] == [2]
        store.forget_everything()
        assert store.training_runs() == []


def test_options_a_later_version_added_are_ignored() -> None:
    record = TrainingRecord("cli", {"model": "lstm", "dropout": 0.1}, 1, 0.5, 0.7, 1.0, ())
    assert record_options(record) == TrainOptions(model="lstm")


def test_progress_lists_kept_runs_as_the_lab_does(data_dir: Path) -> None:
    import json
    import subprocess
    import sys

    from tui_course.render.training import runs_table

    record = a_record()
    with ProgressStore(data_dir) as store:
        store.record_training_run(record)
        kept = store.training_runs()

    def progress(*args: str) -> str:
        command = [sys.executable, "-m", "tui_course", "progress", "--data-dir", str(data_dir)]
        result = subprocess.run([*command, *args], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout

    table = progress()
    assert table.rstrip("\n").endswith(runs_table(kept, 80))  # the lab's own table
    assert "transformer, 5 digits" in table and "1.000" in table and "3.0s" in table
    (row,) = json.loads(progress("--format", "json"))["training_runs"]
    assert row["source"] == "lab" and row["epochs"][1]["val_accuracy"] == 1.0
    assert row["attention"]["sequences"] == 16
    assert ",training," not in progress("--format", "csv")  # the CSV stays lessons and quizzes


def test_a_cli_run_is_kept_with_what_the_lab_keeps(data_dir: Path) -> None:
    from tui_course.commands.train import RunKeeper
    from tui_course.training.protocol import AttentionSummary, Done, EpochEnd

    keeper = RunKeeper(TrainOptions(epochs=1, length=5))
    keeper.see(EpochEnd(1, 1, 0.5, 0.7, 0.4, 0.8, 2.0))
    keeper.see(AttentionSummary(4, [[[0.45, 0.05, 0.05, 0.0, 0.45]] * 5]))
    keeper.see(Done(0.8, 0.4, 10, 1, 2.0, "transformer", True, 5))
    keeper.save(data_dir)
    with ProgressStore(data_dir) as store:
        (kept,) = store.training_runs()
    assert kept.source == "cli" and kept.epochs[0]["val_accuracy"] == 0.8
    assert record_findings(kept) is not None


def test_a_hand_edited_row_is_shown_as_text_with_defaults() -> None:
    from tui_course.render.training import runs_table

    record = TrainingRecord(
        "cli", {"model": "rnn\x1b]0;x\x07", "epochs": "many", "length": 12}, 1, 0.5, 0.7, 1.0, ()
    )
    assert record_options(record) == TrainOptions(model="rnn\x1b]0;x\x07", length=12)
    table = runs_table([record], 80)
    assert "\x1b" not in table and "\x07" not in table and "rnn]0;x, 12 digits" in table
