"""`class report --format csv --only-graded QUIZ`: a file Moodle's grade import cannot use to
erase a grade, because it holds no empty score cell."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.classroom.conftest import drop
from tests.classroom.conftest import submission as payload
from tui_course.classroom.report import build_report, graded_only, report_csv
from tui_course.classroom.submission import login_name
from tui_course.cli import main

QUIZZES = ["checkpoint", "exercises"]


def _in_progress_checkpoint(class_dir: Path) -> str:
    me = login_name()
    data = payload(me, "2026-11-30T08:00:00+00:00", checkpoint=(None, 1), exercises=(4, 5))
    data["quizzes"][0].update(state="in progress", answered=1)
    drop(class_dir / "dropbox", "a.json", data)
    return me


def test_only_graded_keeps_one_quiz_and_the_students_who_finished_its_first_pass(
    class_dir: Path,
) -> None:
    me = _in_progress_checkpoint(class_dir)
    report = build_report(class_dir / "dropbox", QUIZZES)
    everyone = list(csv.reader(io.StringIO(report_csv(report))))
    assert everyone[1][1:3] == ["", ""]  # the cells that would erase a checkpoint grade
    exercises = list(csv.reader(io.StringIO(report_csv(graded_only(report, "exercises")))))
    assert exercises[0][:3] == ["username", "exercises first_try", "exercises mastered"]
    assert "checkpoint first_try" not in exercises[0]
    assert exercises[1][:3] == [me, "4", "5"]
    checkpoint = list(csv.reader(io.StringIO(report_csv(graded_only(report, "checkpoint")))))
    assert len(checkpoint) == 1  # the header: nobody has a finished first pass
    assert all(cell for row in exercises[1:] for cell in row[1:3])


def test_only_graded_on_the_command_line(
    class_dir: Path, capsys: pytest.CaptureFixture[str], course_root: Path
) -> None:
    me = _in_progress_checkpoint(class_dir)
    args = ["class", "report", str(class_dir), "--format", "csv", "--only-graded"]
    assert main([*args, "exercises"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert [row[:3] for row in rows] == [
        ["username", "exercises first_try", "exercises mastered"],
        [me, "4", "5"],
    ]
    assert main([*args, "checkpoint"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1
    assert main([*args, "nope"]) == 1
    assert "--only-graded: no quiz 'nope'" in capsys.readouterr().err
