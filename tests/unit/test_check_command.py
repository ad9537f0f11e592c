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
