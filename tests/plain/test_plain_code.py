"""A code question in plain mode: checked from a file by the same service as the app's
editor and `attn-tui check`, and stored as the same attempts."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO
from tests.plain.test_plain_course import check_lines, take
from tui_course.content.course import load_course
from tui_course.progress.store import ProgressStore


def test_a_code_question_checked_from_a_file(tmp_path: Path) -> None:
    quiz = load_course(REPO).find("code")
    spec = quiz.questions[0].code  # type: ignore[union-attr]
    assert spec is not None
    (tmp_path / "starter.py").write_text(spec.starter)
    (tmp_path / "good.py").write_text(spec.solution)
    script = [
        "",
        "starter",
        "check missing.py",
        f"check {tmp_path / 'starter.py'}",
        f"check {tmp_path / 'starter.py'}",  # the same code again: no new try
        f"check {tmp_path / 'good.py'}",
        "",
        "q",
    ]
    code, text, _ = take(
        tmp_path / "data", lambda p, t: script.pop(0) if script else "q", REPO, open_id="code"
    )
    check_lines(text)
    assert code == 0
    assert "Starter code:" in text and f"def {spec.entry}(" in text
    assert "missing.py: cannot be read" in text
    assert "You checked this code already" in text
    assert "PASSED" in text and "Correct." in text
    with ProgressStore(tmp_path / "data") as store:
        rows = store.quiz_rows("code")
    assert [(r.question_index, r.verdict, r.try_number) for r in rows] == [
        (1, "wrong", 1),
        (1, "right", 2),
    ]
