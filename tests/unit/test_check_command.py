"""`attn-tui check`: plain verdict, exit status, the attempt saved, and --watch re-checking."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_course.cli import main
from tui_course.progress.store import ProgressStore

SOLUTION = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


REPO = Path(__file__).resolve().parents[2]


def solution_file(folder: Path) -> Path:
    path = folder / "solution.py"
    path.write_text(SOLUTION)
    return path


def test_check_passes_fails_and_records(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(SOLUTION)
    bad.write_text(SOLUTION.replace("/ np.sqrt(Q.shape[-1])", ""))
    assert main(["check", "code/1", str(bad), "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: Case '3 queries, 5 keys, d = 4'")
    assert "divide the scores by sqrt(d)" in out
    assert main(["check", "attention_weights", str(good), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("PASSED")
    with ProgressStore(data) as store:
        rows = store.code_checks("code")
    assert [(r.question_index, r.outcome, r.mistake) for r in rows] == [
        (1, "failed", 0),
        (1, "passed", None),
    ]


def test_unknown_ids_and_missing_drafts_are_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "code/9", "--data-dir", str(tmp_path)]) == 2
    assert "no code question 'code/9' (code questions: code/1" in capsys.readouterr().err
    assert main(["check", "code/1", "--data-dir", str(tmp_path)]) == 1
    assert "--starter > mine.py" in capsys.readouterr().err


def test_starter_prints_the_starter_and_checks_nothing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """What the error above tells a student to run: the starter, as the editor shows it."""
    from tui_course.content.course import load_course
    from tui_course.paths import default_content_dir

    quiz = next(q for q in load_course(default_content_dir()).quizzes if q.id == "code")
    starter = quiz.questions[0].code.starter  # type: ignore[union-attr]
    for wanted in ("code/1", "attention_weights"):
        argv = ["check", wanted, "--starter", "--data-dir", str(tmp_path)]
        assert main(argv) == 0
        assert capsys.readouterr().out == starter
    assert not list(tmp_path.glob("crash-*"))
    with ProgressStore(tmp_path) as store:
        assert store.code_checks("code") == []


def test_watch_rechecks_on_save(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION.replace("K.T", "K"))
    env = dict(os.environ, ATTN_TUI_DATA_DIR=str(tmp_path / "data"))
    child = subprocess.Popen(
        [sys.executable, "-m", "tui_course", "check", "code/1", str(mine), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    try:
        seen = _read_until(child.stdout, "each query meets each key through Q @ K.T")
        assert "NOT YET" in seen  # recognised as the K-not-transposed mistake
        mine.write_text(SOLUTION)  # same second, maybe same size: the hash tells
        assert "PASSED" in _read_until(child.stdout, "PASSED")
    finally:
        child.kill()
        child.wait()


def _read_until(stream, word: str) -> str:  # type: ignore[no-untyped-def]
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if word in line:
            return "".join(seen)
    raise AssertionError(f"{word!r} never came: {''.join(seen)!r}")


def test_without_file_check_reads_the_editors_draft(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from tui_course.progress.drafts import draft_path

    draft = draft_path(tmp_path, "code", 1)
    assert draft == tmp_path / "code" / "code-1.py"
    draft.parent.mkdir(parents=True)
    draft.write_text(SOLUTION)
    assert main(["check", "code/1", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("PASSED")


def test_the_starter_and_unparsable_code_are_checked_but_not_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui_course.content.quizzes import load_quiz

    quiz = load_quiz(REPO / "quizzes" / "write-the-code.toml", REPO / "quizzes")
    spec = quiz.questions[0].code
    assert spec is not None
    data, starter, broken = tmp_path / "data", tmp_path / "starter.py", tmp_path / "broken.py"
    starter.write_text(spec.starter)
    broken.write_text("def attention_weights(Q, K)\n    return Q\n")
    assert main(["check", "code/1", str(starter), "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert "This is still the starter" in out
    assert "Cases not passed" not in out  # unfinished, not failed case by case
    assert main(["check", "code/1", str(broken), "--data-dir", str(data)]) == 1
    assert "Syntax error on line 1" in capsys.readouterr().out
    with ProgressStore(data) as store:
        assert store.code_checks("code") == []
    assert main(["check", "code/1", str(solution_file(tmp_path)), "--data-dir", str(data)]) == 0
    with ProgressStore(data) as store:  # the first recorded check: still a first try
        assert [r.outcome for r in store.code_checks("code")] == ["passed"]


def _check_in_child(target: Path | str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`attn-tui check code/1 TARGET` in a child, so a read that hangs or eats memory
    fails this test instead of freezing the run (the timeout is a guard, not a measure)."""
    env = dict(os.environ, ATTN_TUI_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run(
        [sys.executable, "-m", "tui_course", "check", "code/1", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _one_line_naming(stderr: str, target: Path | str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert str(target) in lines[0]
    assert "Traceback" not in stderr
    return lines[0]


def test_check_refuses_dev_zero_without_reading_it(tmp_path: Path) -> None:
    done = _check_in_child("/dev/zero", tmp_path)
    assert done.returncode == 1
    assert "not a regular file" in _one_line_naming(done.stderr, "/dev/zero")


def test_check_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "mine.py"
    os.mkfifo(fifo)
    done = _check_in_child(fifo, tmp_path)
    assert done.returncode == 1
    assert "not a regular file" in _one_line_naming(done.stderr, fifo)


def test_check_refuses_a_folder_and_a_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "folder.py"
    folder.mkdir()
    assert main(["check", "code/1", str(folder), "--data-dir", str(tmp_path / "d")]) == 1
    assert "is a folder" in _one_line_naming(capsys.readouterr().err, folder)
    missing = tmp_path / "missing.py"
    assert main(["check", "code/1", str(missing), "--data-dir", str(tmp_path / "d")]) == 1
    assert "No such file" in _one_line_naming(capsys.readouterr().err, missing)


def test_check_refuses_a_file_over_the_code_cap(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from tui_course.content.code_model import MAX_CODE_BYTES

    big = tmp_path / "big.py"
    big.write_text(SOLUTION + "#" * (MAX_CODE_BYTES - len(SOLUTION)) + "\n")
    assert main(["check", "code/1", str(big), "--data-dir", str(tmp_path / "d")]) == 1
    line = _one_line_naming(capsys.readouterr().err, big)
    assert f"larger than {MAX_CODE_BYTES // 1024} KB" in line
    sparse = tmp_path / "sparse.py"
    with sparse.open("wb") as handle:
        handle.truncate(10 * 1024**3)  # 10 GB that take no disk
    assert main(["check", "code/1", str(sparse), "--data-dir", str(tmp_path / "d")]) == 1
    assert "larger than" in _one_line_naming(capsys.readouterr().err, sparse)
    with ProgressStore(tmp_path / "d") as store:
        assert store.code_checks("code") == []  # nothing was checked or recorded


def test_a_file_at_the_cap_is_read_and_checked(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from tui_course.codecheck.student_file import read_code_file
    from tui_course.content.code_model import MAX_CODE_BYTES

    exact = tmp_path / "exact.py"
    exact.write_text(SOLUTION + "#" * (MAX_CODE_BYTES - len(SOLUTION) - 1) + "\n")
    assert len(read_code_file(exact).encode()) == MAX_CODE_BYTES
    assert main(["check", "code/1", str(exact), "--data-dir", str(tmp_path / "d")]) == 0
    assert capsys.readouterr().out.startswith("PASSED")


def test_watch_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "mine.py"
    os.mkfifo(fifo)
    env = dict(os.environ, ATTN_TUI_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "tui_course", "check", "code/1", str(fifo), "--watch"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert "not a regular file" in _one_line_naming(done.stderr, fifo)


def test_a_second_check_starts_no_probe_and_no_reference(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """What a student's next `check` pays is one sandboxed run of their code: the probe
    and the reference's results come from the data folder (issue 30)."""
    from tui_course.codecheck import service as code_check_service
    from tui_course.sandbox import level

    level.forget_probe()
    if level.sandbox_level().level is not level.Level.BWRAP:
        pytest.skip("remembered only under bwrap")
    data = tmp_path / "data"
    good = solution_file(tmp_path)
    level.forget_probe()
    assert main(["check", "code/1", str(good), "--data-dir", str(data)]) == 0
    assert sorted(p.name.split("-")[0] for p in (data / "check-cache").iterdir()) == [
        "reference",
        "sandbox",
    ]

    def refused(*args: object) -> None:
        raise AssertionError("set-up repeated")

    level.forget_probe()  # a new process: nothing in memory
    monkeypatch.setattr(level, "_run_probe", refused)
    monkeypatch.setattr(code_check_service, "_results", refused)
    capsys.readouterr()
    assert main(["check", "code/1", str(good), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("PASSED")
    level.forget_probe()
