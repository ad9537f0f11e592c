from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert result.stderr.startswith(
        "attn-tui: error: --open: no lesson, quiz or lab with id 'nope'"
    )


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


def test_attention_command_default_sentence_plain_when_piped() -> None:
    result = run("attention", "--query", "station", env={"LANG": "C.UTF-8", "LC_ALL": ""})
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "toy-train, d = 5, scores / sqrt(5)"
    assert "\x1b[" not in result.stdout  # piped: no colour codes
    assert ">station ..  5 ++ 26 ..  7 ..  5 @@ 47 ..  5 ..  5" in lines
    assert "  station 0.47 " + "\u2588" * 9 + "\u258d  \u2190 strongest" in lines


def test_attention_command_ascii_by_flag_and_by_locale() -> None:
    for args, env in ((("--ascii",), {"LANG": "C.UTF-8"}), ((), {"LANG": "C", "LC_ALL": "C"})):
        result = run("attention", "--query", "station", *args, env=env)
        assert result.returncode == 0
        assert result.stdout.isascii()
        assert "  station 0.47 #########  <- strongest" in result.stdout.splitlines()


def test_attention_command_words_heads_and_errors() -> None:
    result = run(
        "attention",
        "the",
        "cat",
        "sat",
        "--embeddings",
        "toy-cat-sat",
        "--heads",
        "2",
        "--causal",
        "--no-scale",
        "--ascii",
    )
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "toy-cat-sat, d = 3, scores not scaled, causal mask"
    assert result.stdout.count("\nhead ") == 2
    assert ">the @@100     0     0" in result.stdout.splitlines()
    bad = run("attention", "--query", "zzz")
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == [
        "attn-tui: attention: error: --query: 'zzz' is not one of: "
        "The, train, left, the, station, on, time"
    ]
    heads = run("attention", "--heads", "3")
    assert heads.returncode == 2 and len(heads.stderr.splitlines()) == 1


def test_pe_command() -> None:
    result = run("pe", "--positions", "2", "--dim", "4")
    assert result.returncode == 0
    assert result.stdout.splitlines()[:5] == [
        "Sinusoidal PE, d_model = 4",
        "",
        "pos  sin 0 cos 1 sin 2 cos 3",
        "  0  0.000 1.000 0.000 1.000",
        "  1  0.841 0.540 0.010 1.000",
    ]
    bad = run("pe", "--dim", "0")
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "attn-tui pe: error: argument --dim: 0 is not between 1 and 512 (see attn-tui pe --help)"
    )


@pytest.mark.parametrize("unbuffered", [False, True])
def test_broken_pipe_is_quiet(unbuffered: bool) -> None:
    """`attn-tui attention | head -c 0`: the reader is gone before the first byte, so the
    write fails whether Python flushes line by line (PYTHONUNBUFFERED) or only at exit."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "tui_course", "attention"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
        )
    finally:
        os.close(write_end)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert stderr == b""


def test_cli_train_without_the_extra_is_one_line() -> None:
    script = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name in ('keras', 'tensorflow')"
        " else real(name, *a)\n"
        "from tui_course.cli import main\n"
        "sys.exit(main(['train']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ},
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "attn-tui: train: needs the 'train' extra (Keras and TensorFlow): pip install "
        "'attn-tui[train]' (from a checkout: pip install '.[train]')"
    ]
