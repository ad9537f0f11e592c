from __future__ import annotations

import csv
import io
import json
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


def _one_finished_first_pass(data: Path) -> None:
    """checkpoint: q1 right first try, q2 right on try 2 after 1 hint, q3 revealed."""
    with ProgressStore(data) as store:
        run_id = store.start_run("checkpoint", 3)
        store.record_attempt(run_id, "checkpoint", 1, "2", True, seconds=4.0)
        store.record_attempt(
            run_id, "checkpoint", 2, "3", False, final=False, seconds=5.0, hints_seen=0
        )
        store.record_attempt(run_id, "checkpoint", 2, "2", True, try_number=2, hints_seen=1)
        store.record_attempt(
            run_id, "checkpoint", 3, "", False, verdict="revealed", revealed=True, try_number=0
        )
        store.finish_run(run_id)


def test_progress_table_and_csv_use_env_data_dir(tmp_path: Path) -> None:
    import pwd

    _one_finished_first_pass(tmp_path)
    # USER and LOGNAME are anyone's to set: a class collecting these files needs the real name
    env = {"ATTN_TUI_DATA_DIR": str(tmp_path), "USER": "ada", "LOGNAME": "ada"}
    me = pwd.getpwuid(os.geteuid()).pw_name
    table = run("progress", env=env)
    assert table.returncode == 0
    assert table.stdout.startswith(f"Progress of {me}\n")
    line = next(row for row in table.stdout.splitlines() if row.strip().startswith("checkpoint"))
    # state, first-try, mastered, best, tries, hints, reveals, time
    assert line.split()[1:] == ["finished", "1/3", "2/3", "2/3", "3", "1", "1", "0:09"]
    lab = next(row for row in table.stdout.splitlines() if " digit-lab " in row)
    assert "Lab: a Transformer for a long-range task no" in " ".join(lab.split())  # not cut
    rows = list(csv.DictReader(io.StringIO(run("progress", "--format", "csv", env=env).stdout)))
    checkpoint = next(row for row in rows if row["id"] == "checkpoint")
    assert checkpoint["user"] == me
    assert (checkpoint["first_try"], checkpoint["mastered"], checkpoint["best"]) == ("1", "2", "2")
    assert (checkpoint["tries"], checkpoint["hints"], checkpoint["reveals"]) == ("3", "1", "1")
    assert checkpoint["state"] == "finished" and checkpoint["seconds"] == "9.0"
    assert sum(row["kind"] == "lesson" for row in rows) == 11
    report = json.loads(run("progress", "--format", "json", env=env).stdout)
    assert report["user"] == me
    quiz = next(q for q in report["quizzes"] if q["id"] == "checkpoint")
    assert set(quiz) >= {
        "id",
        "title",
        "questions",
        "state",
        "answered",
        "first_try",
        "mastered",
        "best",
        "tries",
        "hints",
        "reveals",
        "seconds",
        "last_activity",
    }
    assert set(report["lessons"][0]) >= {"id", "title", "order", "read", "last_activity"}


def test_part_way_quiz_is_in_progress_not_a_score(tmp_path: Path) -> None:
    with ProgressStore(tmp_path) as store:
        run_id = store.start_run("checkpoint", 3)
        store.record_attempt(run_id, "checkpoint", 1, "3", False, final=False)
    out = run("progress", "--data-dir", str(tmp_path)).stdout
    line = next(row for row in out.splitlines() if row.strip().startswith("checkpoint"))
    assert line.split()[1:5] == ["in", "progress", "0/3", "-"]


def test_reset_asks_then_forgets_one_quiz(tmp_path: Path) -> None:
    _one_finished_first_pass(tmp_path)
    with ProgressStore(tmp_path) as store:
        store.record_attempt(None, "exercises", 1, "0.67", True)
    refused = run("reset", "checkpoint", "--data-dir", str(tmp_path))  # stdin is not a tty
    assert refused.returncode == 1 and "needs --yes" in refused.stderr
    unknown = run("reset", "nope", "--yes", "--data-dir", str(tmp_path))
    assert unknown.returncode == 2 and "no quiz or lesson 'nope'" in unknown.stderr
    done = run("reset", "checkpoint", "--yes", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    with ProgressStore(tmp_path) as store:
        assert store.attempts("checkpoint") == [] and len(store.attempts("exercises")) == 1
    assert run("reset", "--all", "--yes", "--data-dir", str(tmp_path)).returncode == 0
    with ProgressStore(tmp_path) as store:
        assert store.attempts() == []
    assert run("reset", "--data-dir", str(tmp_path)).returncode == 2  # neither id nor --all


def test_reset_of_a_read_only_progress_file_says_nothing_was_changed(tmp_path: Path) -> None:
    """It said "Forgot ALL saved progress." having changed only a copy in memory. (A 0444
    file gives a read-only session even for root.)"""
    _one_finished_first_pass(tmp_path)
    (tmp_path / "progress.db").chmod(0o444)
    for args in (("--all",), ("checkpoint",), ("why-transformers",)):
        refused = run("reset", *args, "--yes", "--data-dir", str(tmp_path))
        assert refused.returncode == 1, refused.stdout
        assert "Forgot" not in refused.stdout
        assert "nothing was changed" in refused.stderr and "read-only" in refused.stderr
        assert len(refused.stderr.splitlines()) == 1
    (tmp_path / "progress.db").chmod(0o600)
    with ProgressStore(tmp_path) as store:
        assert len(store.attempts("checkpoint")) == 4  # every row still there


def test_list_prints_every_id_with_its_title() -> None:
    lines = run("list").stdout.splitlines()
    assert "lesson  why-transformers             Why a new design was needed" in lines
    assert any(line.startswith("quiz    checkpoint ") for line in lines)
    assert any(line.startswith("lab     training-lab ") for line in lines)
    assert len(lines) == 11 + 4 + 5  # lessons, labs (with the real-model lab), quizzes


def test_review_due_lists_missed_questions(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from tui_course.progress.review import ReviewSchedule

    with ProgressStore(tmp_path) as store:
        past = datetime.now(UTC) - timedelta(days=1)
        ReviewSchedule(store, lambda: past).closed("checkpoint", 2, "wrong", 1, "first")
    out = run("review", "--due", "--data-dir", str(tmp_path)).stdout
    assert out.splitlines()[:2] == ["1 due for review", out.splitlines()[1]]
    assert "checkpoint question 2" in out


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
    env = {"LANG": "C.UTF-8", "LC_ALL": "", "COLUMNS": "80"}
    result = run("attention", "--query", "station", env=env)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[:2] == ["toy-train, d = 5, one head: Q = K = V = the vectors", "scores / sqrt(5)"]
    assert "\x1b[" not in result.stdout  # piped: no colour codes
    whole_words = ["The", "train", "left", "the", "station", "on", "time"]
    assert lines[lines.index("") + 1].split() == whole_words  # the header, after the notes
    assert ">station    ..  5    ++ 26    ..  7    ..  5    @@ 47    ..  5    ..  5" in lines
    assert "  station 0.47 " + "\u2588" * 9 + "\u258d  \u2190 strongest" in lines


def test_attention_command_numbers_columns_in_a_narrow_terminal() -> None:
    sentence = [
        *["The", "animal", "didn't", "cross", "the", "street"],
        *["because", "it", "was", "too", "tired"],
    ]
    sentence_flags = ["--embeddings", "hashed", *sentence]  # the layout, not which vectors
    wide = run("attention", *sentence_flags, env={"COLUMNS": "120"}).stdout.splitlines()
    assert sentence in [line.split() for line in wide]
    assert not any(line.startswith("keys:") for line in wide)
    narrow = run("attention", *sentence_flags, env={"COLUMNS": "60"}).stdout.splitlines()
    header = next(line for line in narrow if line.split()[:3] == ["1", "2", "3"])
    shown = [sentence[int(number) - 1] for number in header.split()]
    key_lines = [line for line in narrow if line.startswith("keys: ")]
    assert len(key_lines) == 1
    start = narrow.index(key_lines[0])
    key_text = " ".join(narrow[start : start + 2]).removeprefix("keys: ")
    assert [pair.split()[1] for pair in key_text.split("  ") if pair.strip()] == shown
    assert "columns 1-8 of 11" in " ".join(narrow)
    assert all(len(line) <= 60 for line in narrow[4 : start + 3])


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


def test_pe_similarity_keeps_negative_cosines() -> None:
    result = run("pe", "--positions", "4", "--dim", "2", "--similarity", "--start", "0")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert " 0 ## 1.00 :: 0.54 ~~-0.42 ==-0.99" in lines  # cos 2 = -0.416, cos 3 = -0.990
    assert lines[-1].endswith("shade order -1 '=' '-' '~' ',' ' ' (0) '.' ':' '+' '#' +1")
    shifted = run("pe", "--positions", "2", "--dim", "2", "--start", "100")
    assert shifted.stdout.splitlines()[0].endswith("positions 100 to 101")
    assert shifted.stdout.splitlines()[3].split() == ["100", "-0.506", "0.862"]


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


def test_pe_similarity_fits_the_terminal_like_the_attention_heatmap() -> None:
    """`attn-tui pe --similarity` printed all 64 columns (520 wide) whatever the width,
    while `attn-tui attention` windows its heatmap to the terminal."""
    result = run("pe", "--positions", "64", "--similarity", env={"COLUMNS": "80"})
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[-1] == "rows 0-63 and columns 0-8 of 64"  # positions by their labels
    narrow = run("pe", "--positions", "4", "--dim", "2", "--similarity", env={"COLUMNS": "80"})
    assert " 0 ## 1.00 :: 0.54 ~~-0.42 ==-0.99" in narrow.stdout.splitlines()


@pytest.mark.parametrize(
    "command", ["validate", "list", "progress", "export", "reset", "review", "submit", "doctor"]
)
def test_each_subcommand_help_says_what_it_does(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`attn-tui validate --help` went straight from usage to options."""
    from tui_course.commands.parser import build_parser

    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args([command, "--help"])
    text = capsys.readouterr().out
    description = text.split("\n\n")[1]
    assert not description.startswith(("positional arguments", "options")), text
    assert description.endswith("."), description


def test_help_examples_are_whole_commands_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrapped example ('... sat the cat sat' / 'down') cannot be copied and run."""
    from tui_course.commands.parser import build_parser

    monkeypatch.setenv("COLUMNS", "80")
    for command in ("attention", "pe", "train"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        lines = capsys.readouterr().out.rstrip("\n").splitlines()
        assert lines[-2] == "example:"
        assert lines[-1].startswith(f"  attn-tui {command} ") and len(lines[-1]) <= 80
    with pytest.raises(SystemExit):
        build_parser().parse_args(["progress", "--help"])
    assert "json for a script (default table)" in " ".join(capsys.readouterr().out.split())
