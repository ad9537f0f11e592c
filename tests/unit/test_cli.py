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
    assert lines[:2] == ["toy-train, d = 5, one head: Q = K = V = the vectors", "scores / sqrt(5)"]
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
    assert result.stdout.splitlines()[:3] == [
        "toy-cat-sat, d = 3, 2 heads of size 2",
        "3 does not split into 2 equal slices: each head projects all 3 numbers"
        " to its own 2 (3 / 2 rounded up, like Keras' key_dim)",
        "scores not scaled, causal mask (no looking ahead)",
    ]
    assert result.stdout.count("\nhead ") == 2
    assert "head 2 of 2: size 2, scores not scaled" in result.stdout.splitlines()
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
        "Sinusoidal PE, d_model = 4, positions 0 to 1",
        "",
        "pos  sin 0 cos 1 sin 2 cos 3",
        "  0  0.000 1.000 0.000 1.000",
        "  1  0.841 0.540 0.010 1.000",
    ]
    bad = run("pe", "--dim", "0")
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "attn-tui pe: error: argument --dim: must be from 1 to 512, got 0 (see attn-tui pe --help)"
    )


def test_broken_pipe_is_quiet() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tui_course", "attention"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.read(10)
    process.stdout.close()
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0
    assert b"Traceback" not in stderr


def test_pe_similarity_keeps_negative_cosines() -> None:
    result = run("pe", "--positions", "4", "--dim", "2", "--similarity", "--start", "0")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert " 0 ## 1.00 :: 0.54 ~~-0.42 ==-0.99" in lines  # cos 2 = -0.416, cos 3 = -0.990
    assert lines[-1].endswith("shade order -1 '=' '-' '~' ',' ' ' (0) '.' ':' '+' '#' +1")
    shifted = run("pe", "--positions", "2", "--dim", "2", "--start", "100")
    assert shifted.stdout.splitlines()[0].endswith("positions 100 to 101")
    assert shifted.stdout.splitlines()[3].split() == ["100", "-0.506", "0.862"]
