"""`class report`: latest submission per quiz wins; foreign, tampered and huge files are listed."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from tests.classroom.conftest import arrived, drop
from tests.classroom.conftest import submission as payload
from tui_course.classroom.report import build_report, report_csv, report_json, report_table
from tui_course.classroom.submission import login_name
from tui_course.cli import main

QUIZZES = ["checkpoint", "exercises"]


def table_row(table: str, user: str) -> list[str]:
    """The cells of a student's line of the table (columns are two or more spaces apart)."""
    import re

    line = next(line for line in table.splitlines() if line.startswith(f"{user} "))
    return re.split(r"\s{2,}", line)


def test_latest_submission_per_quiz_wins(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    drop(dropbox, "a.json", payload(me, "2026-11-30T08:00:00+00:00", checkpoint=(1, 2)))
    drop(dropbox, "b.json", payload(me, "2026-11-30T09:00:00+00:00", checkpoint=(3, 5)))
    drop(dropbox, "c.json", payload(me, "2026-11-30T08:30:00+00:00", exercises=(4, 4)))
    report = build_report(dropbox, QUIZZES)
    row = report.students[me]
    assert row.quizzes["checkpoint"][0].mastered == 5
    assert row.quizzes["checkpoint"][0].first_try == 3  # what the latest file says, but
    assert row.result("checkpoint") is not None
    assert row.result("checkpoint").first_try == 1  # type: ignore[union-attr]  # the first counts
    assert row.quizzes["exercises"][0].first_try == 4
    assert row.last_activity == "2026-11-30T09:00:00+00:00"
    assert row.submissions == 3
    rows = list(csv.reader(io.StringIO(report_csv(report))))
    assert rows[0] == [
        "username",
        "checkpoint first_try",
        "checkpoint mastered",
        "exercises first_try",
        "exercises mastered",
        "lessons_read",
        "last_activity",
        "late",
        "passed_without_bwrap",
    ]
    assert rows[1] == [me, "1", "5", "4", "4", "1", "2026-11-30T09:00:00+00:00", "", ""]


def test_a_second_first_pass_never_raises_the_first_try_score(class_dir: Path) -> None:
    """`attn-tui reset QUIZ` (or a lost database) and a second go make a new first pass
    whose first-try score the student's app reports; the report keeps the first one."""
    dropbox = class_dir / "dropbox"
    me = login_name()
    drop(dropbox, "first.json", payload(me, "2026-11-30T08:36:18+00:00", checkpoint=(0, 2)))
    drop(dropbox, "retry.json", payload(me, "2026-11-30T08:36:37+00:00", checkpoint=(0, 3)))
    drop(dropbox, "again.json", payload(me, "2026-11-30T08:38:14+00:00", checkpoint=(5, 5)))
    report = build_report(dropbox, QUIZZES)
    assert table_row(report_table(report), me)[1] == "0/5 of 5"
    rows = list(csv.reader(io.StringIO(report_csv(report))))
    assert rows[1][1:3] == ["0", "5"]
    quiz = report_json(report)["students"][0]["quizzes"]["checkpoint"]
    assert (quiz["first_try"], quiz["mastered"]) == (0, 5)


def test_a_quiz_without_a_finished_first_pass_is_not_a_grade(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    data = payload(me, "2026-11-30T08:37:17+00:00", checkpoint=(None, 2), exercises=(None, 0))
    data["quizzes"][0].update(state="in progress", answered=2, tries=2)
    data["quizzes"][1].update(state="not started", tries=0, last_activity=None)
    drop(dropbox, "a.json", data)
    report = build_report(dropbox, QUIZZES)
    table = report_table(report)
    assert table_row(table, me)[1:3] == ["in progress 2/5", "-"]
    assert "in progress i/n: i of n questions answered" in table
    rows = list(csv.reader(io.StringIO(report_csv(report))))
    assert rows[1][1:5] == ["", "", "", ""]  # Moodle: empty = no grade; 0 = failed
    quiz = report_json(report)["students"][0]["quizzes"]["checkpoint"]
    assert (quiz["state"], quiz["answered"], quiz["first_try"]) == ("in progress", 2, None)


def test_owner_must_be_the_named_user(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    drop(dropbox, "forged.json", payload("someone-else", "2026-11-30T08:00:00Z", checkpoint=(5, 5)))
    report = build_report(dropbox, QUIZZES)
    assert report.students == {}
    assert [(r.name, r.reason) for r in report.impostors] == [
        ("forged.json", f"names 'someone-else' but belongs to '{login_name()}'")
    ]
    assert "Files whose owner is not the student they name" in report_table(report)
    assert report_json(report)["owner_mismatches"][0]["file"] == "forged.json"


def test_hostile_files_are_listed_never_crash(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    drop(dropbox, "good.json", payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 3)))
    drop(dropbox, "huge.json", b" " * (600 * 1024))
    drop(dropbox, "garbage.json", b"\x00\xff not json")
    drop(dropbox, "nested.json", b"[" * 200_000)
    drop(dropbox, "esc\x1b[2J.json", b"{}")
    (dropbox / "line\nbreak.json").write_bytes(b"{}")
    os.close(os.open(dropbox.as_posix().encode() + b"/bad-\xff.json", os.O_CREAT | os.O_WRONLY))
    os.mkfifo(dropbox / "fifo")
    (dropbox / "folder").mkdir()
    os.symlink("/etc/shadow", dropbox / "link.json")
    report = build_report(dropbox, QUIZZES)
    reasons = {r.name: r.reason for r in report.rejected}
    assert reasons["huge.json"] == "too large (614400 bytes)"
    assert reasons["garbage.json"] == "not JSON"
    assert reasons["nested.json"] == "not JSON"
    assert reasons["esc[2J.json"] == "not an attn-tui submission"  # the name lost its ESC
    assert reasons["line?break.json"] == "not an attn-tui submission"
    assert reasons["bad-\ufffd.json"] == "not JSON"
    assert reasons["fifo"] == "not a regular file"
    assert reasons["folder"] == "not a regular file" or "cannot read" in reasons["folder"]
    assert reasons["link.json"].startswith("cannot read")
    assert report.students[me].quizzes["checkpoint"][0].first_try == 2
    assert "\x1b" not in report_table(report)


def test_deadlines_mark_late_submissions(class_dir: Path) -> None:
    import datetime as dt

    dropbox = class_dir / "dropbox"
    me = login_name()
    # the file says it was sent long ago: its arrival (ctime) is what counts
    path = drop(
        dropbox, "a.json", payload(me, "2020-01-01T08:00:00Z", checkpoint=(2, 3), exercises=(1, 1))
    )
    deadline = {"checkpoint": arrived(path) - dt.timedelta(seconds=1)}
    report = build_report(dropbox, QUIZZES, deadlines=deadline)
    row = report.students[me]
    assert report.late(row, "checkpoint") and not report.late(row, "exercises")
    assert "2/3 of 5*" in report_table(report)
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    assert rows[0]["late"] == "checkpoint"
    assert report_json(report)["students"][0]["quizzes"]["checkpoint"]["late"] is True


def test_a_retry_after_the_deadline_is_not_late(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    in_time = drop(dropbox, "in-time.json", payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 3)))
    drop(dropbox, "retry.json", payload(me, "2026-11-30T10:00:00Z", checkpoint=(2, 5)))
    drop(dropbox, "other.json", payload(me, "2026-11-30T10:00:00Z", exercises=(1, 1)))
    deadline = arrived(in_time)
    deadlines = {"checkpoint": deadline, "exercises": deadline}
    report = build_report(dropbox, QUIZZES, deadlines=deadlines)
    assert table_row(report_table(report), me)[1:3] == ["2/5 of 5", "1/1 of 5*"]


def test_a_date_written_by_the_student_cannot_make_a_late_file_on_time(class_dir: Path) -> None:
    """Issue 18: a file made after the deadline claiming `submitted_at` before it was on
    time, and its score replaced the honest one."""
    dropbox = class_dir / "dropbox"
    me = login_name()
    honest = drop(dropbox, "honest.json", payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 2)))
    deadline = arrived(honest)
    drop(dropbox, "forged.json", payload(me, "2000-01-01T00:00:00Z", checkpoint=(5, 5)))
    report = build_report(dropbox, QUIZZES, deadlines={"checkpoint": deadline})
    row = report.students[me]
    result = row.result("checkpoint")
    assert result is not None and result.first_try == 2  # the first arrival counts
    assert result.mastered == 5 and not report.late(row, "checkpoint")


def test_table_times_are_utc(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    drop(dropbox, "a.json", payload(me, "2026-11-30T10:36:56+02:00", checkpoint=(2, 3)))
    table = report_table(build_report(dropbox, QUIZZES))
    assert "last activity (UTC)" in table.splitlines()[0]
    assert table_row(table, me)[-1] == "2026-11-30 08:36:56"


def test_report_command_formats(
    class_dir: Path, capsys: pytest.CaptureFixture[str], course_root: Path
) -> None:
    me = login_name()
    drop(class_dir / "dropbox", "a.json", payload(me, "2026-11-30T08:00:00Z", exercises=(4, 5)))
    assert main(["class", "report", str(class_dir), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["students"][0]["user"] == me
    assert data["students"][0]["quizzes"]["exercises"]["first_try"] == 4
    assert main(["class", "report", str(class_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Attention 101: 1 student(s)")
    assert "4/5 of 5" in out  # shipped exercises quiz has 5 questions
    (class_dir / "dropbox").chmod(0o2777)
    assert main(["class", "report", str(class_dir)]) == 1
    err = capsys.readouterr().err
    assert err.strip().endswith(f"fix: chmod 3773 {class_dir / 'dropbox'}")


def test_report_without_dir_uses_the_site_config(
    class_dir: Path, site_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop(class_dir / "dropbox", "a.json", payload(login_name(), "2026-11-30T08:00:00Z"))
    assert main(["class", "report", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith(f"{login_name()},")


def _code_entry(sandbox: str, outcome: str = "passed") -> dict[str, object]:
    import hashlib

    code = "def f():\n    return 1\n"
    return {
        "quiz_id": "exercises",
        "question": 1,
        "code": code,
        "sha256": hashlib.sha256(code.encode()).hexdigest(),
        "outcome": outcome,
        "sandbox": sandbox,
        "checked_at": "2026-11-30T09:00:00+00:00",
    }


@pytest.mark.parametrize(
    ("sandbox", "outcome", "marked"),
    [("limits only", "passed", True), ("bwrap", "passed", False), ("limits only", "failed", False)],
)
def test_a_code_pass_made_without_bwrap_is_marked(
    class_dir: Path, sandbox: str, outcome: str, marked: bool
) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    data = payload(me, "2026-11-30T09:00:00+00:00", exercises=(1, 1))
    data["code"] = [_code_entry(sandbox, outcome)]
    drop(dropbox, "a.json", data)
    report = build_report(dropbox, QUIZZES)
    table = report_table(report)
    assert table_row(table, me)[2].endswith("!") is marked
    assert ("without bwrap" in table) is marked
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    assert rows[0]["passed_without_bwrap"] == ("exercises" if marked else "")
    quiz = report_json(report)["students"][0]["quizzes"]["exercises"]
    assert quiz["passed_without_bwrap"] is marked
