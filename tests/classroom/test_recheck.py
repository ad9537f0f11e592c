"""`attn-tui class recheck`: submitted code runs again in the sandbox on fresh seeds; claims
that do not hold come first; below bwrap it refuses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tui_course.classroom.folder import DROPBOX
from tui_course.classroom.submission import FORMAT, FORMAT_VERSION, login_name
from tui_course.cli import main
from tui_course.sandbox.level import BWRAP_ENV, Level, forget_probe, sandbox_level

RIGHT = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def entry(code: str, outcome: str = "passed", digest: str | None = None) -> dict[str, object]:
    return {
        "quiz_id": "code",
        "question": 1,
        "code": code,
        "sha256": digest or hashlib.sha256(code.encode()).hexdigest(),
        "outcome": outcome,
        "sandbox": "bwrap",
        "checked_at": "2026-12-01T10:00:00+00:00",
    }


def drop(class_dir: Path, name: str, code: list[dict[str, object]]) -> None:
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "user": login_name(),
        "app_version": "0.1.0",
        "submitted_at": f"2026-12-01T10:00:0{name[-1]}+00:00",
        "quizzes": [],
        "lessons": [],
        "code": code,
    }
    (class_dir / DROPBOX / f"{name}.json").write_text(json.dumps(payload))


@pytest.fixture
def class_dir(tmp_path: Path) -> Path:
    (tmp_path / DROPBOX).mkdir(parents=True)
    return tmp_path


def test_recheck_lists_mismatches_first(class_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    forget_probe()
    if sandbox_level().level is not Level.BWRAP:
        pytest.skip("no bwrap")
    drop(class_dir, "old1", [entry(RIGHT, "failed")])  # an older file: not rechecked
    wrong = RIGHT.replace(" / np.sqrt(Q.shape[-1])", "")
    drop(class_dir, "new2", [entry(wrong, "passed")])
    assert main(["class", "recheck", "--dir", str(class_dir), "--seed", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "held-out seed 7 (again: --seed 7)"
    assert out[2].split()[:5] == [login_name(), "code/1", "passed", "failed", "NO"]
    assert out[-1] == "1 solution(s) rechecked, 1 disagree with their claim"


def test_recheck_catches_a_changed_file_and_writes_csv(class_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    forget_probe()
    if sandbox_level().level is not Level.BWRAP:
        pytest.skip("no bwrap")
    drop(
        class_dir, "sub1", [entry(RIGHT + "# edited\n", "passed", hashlib.sha256(b"x").hexdigest())]
    )
    assert main(["class", "recheck", "code", "--dir", str(class_dir), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "user,question,claimed,rechecked,agrees,sha256,message"
    assert ",code/1,passed,hash mismatch,NO," in lines[1]


def test_recheck_refuses_without_bwrap(class_dir: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    drop(class_dir, "sub1", [entry(RIGHT)])
    monkeypatch.setenv(BWRAP_ENV, "")
    forget_probe()
    try:
        assert main(["class", "recheck", "--dir", str(class_dir)]) == 1
    finally:
        forget_probe()
    assert "refuses to run students' code without bwrap" in capsys.readouterr().err
