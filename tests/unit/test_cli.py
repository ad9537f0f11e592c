from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

from tui_course.progress.store import ProgressStore


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_course", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_bad_flag_is_one_line_naming_it() -> None:
    result = run("progress", "--format", "xml")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "attn-tui progress: error: argument --format: invalid choice: 'xml' "
        "(choose from 'table', 'csv', 'json') (see attn-tui progress --help)"
    ]


def test_unknown_open_id_is_one_line(tmp_path: Path) -> None:
    result = run("--open", "nope", "--data-dir", str(tmp_path))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("attn-tui: error: --open: no lesson or quiz with id 'nope'")


def test_progress_table_and_csv_use_env_data_dir(tmp_path: Path) -> None:
    with ProgressStore(tmp_path) as store:
        run_id = store.start_run("checkpoint", 3)
        for number in (1, 2, 3):
            store.record_attempt(run_id, "checkpoint", number, "1", True)
        store.finish_run(run_id, 3)
    env = {"ATTN_TUI_DATA_DIR": str(tmp_path)}
    table = run("progress", env=env)
    assert table.returncode == 0
    line = next(row for row in table.stdout.splitlines() if row.strip().startswith("checkpoint"))
    assert line.split()[-3:] == ["3/3", "3/3", "3"]
    rows = list(csv.DictReader(io.StringIO(run("progress", "--format", "csv", env=env).stdout)))
    checkpoint = next(row for row in rows if row["id"] == "checkpoint")
    assert checkpoint["best_score"] == "3" and checkpoint["done"] == "True"
    assert sum(row["kind"] == "lesson" for row in rows) == 11


def test_data_dir_flag_beats_environment(tmp_path: Path) -> None:
    flag_dir, env_dir = tmp_path / "flag", tmp_path / "env"
    result = run("progress", "--data-dir", str(flag_dir), env={"ATTN_TUI_DATA_DIR": str(env_dir)})
    assert result.returncode == 0
    assert (flag_dir / "progress.db").exists() and not env_dir.exists()


def test_unusable_data_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = run("progress", "--data-dir", str(blocker / "sub"))
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("attn-tui: cannot open progress store in ")
