"""Plain mode sends to the class drop-box as the app does: a finished quiz, the lessons
read, and on leaving part-way every quiz's state (the report's "in progress")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.plain.test_plain_course import take
from tui_course.classroom.report import build_report
from tui_course.classroom.submission import login_name, pending_files


def payloads(class_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((class_dir / "dropbox").iterdir())]


def test_a_finished_quiz_and_a_read_lesson_are_submitted(
    tmp_path: Path, class_dir: Path, site_config: Path
) -> None:
    answers = ["2", "1, 2", "1/2", "animal"]

    def policy(prompt: str, text: str) -> str:
        if prompt.startswith("Answer,"):
            return answers.pop(0)
        if prompt.startswith("Enter: next item, r:") or prompt.startswith("Enter: Lesson 2"):
            return "q"
        return ""

    code, text, _ = take(tmp_path / "data", policy, open_id="attend")
    assert code == 0 and "Submission pending" not in text
    sent = payloads(class_dir)
    assert len(sent) == 2  # the lesson read, then the quiz finished
    (lesson_only,) = [p for p in sent if not p["quizzes"]]
    assert {"id": "attend", "read": True} in [
        {"id": row["id"], "read": row["read"]} for row in lesson_only["lessons"]
    ]
    (with_quiz,) = [p for p in sent if p["quizzes"]]
    (quiz,) = with_quiz["quizzes"]
    assert (quiz["id"], quiz["first_try"], quiz["questions"]) == ("small", 4, 4)
    assert pending_files(tmp_path / "data") == []


def test_leaving_part_way_sends_the_quiz_in_progress(
    tmp_path: Path, class_dir: Path, site_config: Path
) -> None:
    script = ["", "2", "", "q"]  # one of four answered, then quit
    take(tmp_path / "data", lambda p, t: script.pop(0) if script else "q", open_id="small")
    report = build_report(class_dir / "dropbox", ["small"])
    result = report.students[login_name()].result("small")
    assert result is not None
    assert (result.state, result.answered) == ("in progress", 1)
