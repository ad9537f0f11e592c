"""The class report: one row per student from the drop-box, latest submission per quiz wins.

Every file is read with a size cap, without following links and without blocking on
a FIFO; a file that is not a valid submission, or whose owner is not the student it
names, is listed and left out of the grades. Nothing in the drop-box can crash it.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import pwd
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tui_course.classroom.submission import (
    MAX_SUBMISSION_BYTES,
    QuizResult,
    Submission,
    SubmissionError,
    parse_submission,
)
from tui_course.content.text import strip_control

MAX_FILES = 100_000


@dataclass(frozen=True)
class Rejected:
    name: str
    reason: str


@dataclass
class StudentRow:
    user: str
    quizzes: dict[str, tuple[QuizResult, dt.datetime]] = field(default_factory=dict)
    lessons_read: frozenset[str] = frozenset()
    lessons_at: dt.datetime | None = None  # the submission the lesson count comes from
    last_activity: str | None = None
    submissions: int = 0
    # the first-try score of the earliest submission with a finished first pass: a reset
    # and a second go (or a lost database) make a new first pass, which must not replace it
    graded: dict[str, tuple[int, dt.datetime]] = field(default_factory=dict)

    def add(self, submission: Submission) -> None:
        self.submissions += 1
        when = submission.submitted_at
        for quiz in submission.quizzes:
            held = self.quizzes.get(quiz.id)
            if held is None or held[1] <= when:
                self.quizzes[quiz.id] = (quiz, when)
            first = self.graded.get(quiz.id)
            if quiz.first_try is not None and (first is None or when < first[1]):
                self.graded[quiz.id] = (quiz.first_try, when)
        if self.lessons_at is None or self.lessons_at <= when:
            self.lessons_read, self.lessons_at = submission.lessons_read, when
        if submission.last_activity and (
            self.last_activity is None
            or _time(submission.last_activity) > _time(self.last_activity)
        ):
            self.last_activity = submission.last_activity

    def result(self, quiz_id: str) -> QuizResult | None:
        """The latest submission's numbers, with the first-try score that counts."""
        held = self.quizzes.get(quiz_id)
        return None if held is None else self.with_grade(held[0])

    def with_grade(self, quiz: QuizResult) -> QuizResult:
        first = self.graded.get(quiz.id)
        return quiz if first is None else replace(quiz, first_try=first[0])


@dataclass
class ClassReport:
    quiz_ids: list[str]
    quiz_titles: dict[str, str]
    students: dict[str, StudentRow] = field(default_factory=dict)
    rejected: list[Rejected] = field(default_factory=list)
    impostors: list[Rejected] = field(default_factory=list)  # owner is not the named user
    unknown_quizzes: set[str] = field(default_factory=set)
    deadlines: dict[str, dt.datetime] = field(default_factory=dict)

    def late(self, row: StudentRow, quiz_id: str) -> bool:
        """Judged on the submission whose first-try score counts: a retry or review sent
        after the deadline does not make a quiz finished in time late."""
        deadline = self.deadlines.get(quiz_id)
        held = row.graded.get(quiz_id) or row.quizzes.get(quiz_id)
        return deadline is not None and held is not None and held[1] > deadline


def shown_name(name: str) -> str:
    """A file name as one printable line: undecodable bytes, control characters and
    newlines cannot reach the teacher's terminal."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    text = strip_control(text).replace("\n", "?").replace("\t", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def _time(stamp: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(stamp)
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def read_capped(directory: Path, name: str) -> tuple[bytes, int]:
    """The bytes of a regular file and its owner's uid; OSError/SubmissionError otherwise."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(directory / name, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError("not a regular file")
        if info.st_size > MAX_SUBMISSION_BYTES:
            raise SubmissionError(f"too large ({info.st_size} bytes)")
        chunks = []
        left = MAX_SUBMISSION_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > MAX_SUBMISSION_BYTES:
            raise SubmissionError("too large (grew while read)")
        return data, info.st_uid
    finally:
        os.close(fd)


def build_report(
    dropbox: Path,
    quiz_ids: Sequence[str],
    quiz_titles: dict[str, str] | None = None,
    deadlines: dict[str, dt.datetime] | None = None,
) -> ClassReport:
    """Read every file of the drop-box; raise OSError only when the folder cannot be listed."""
    report = ClassReport(list(quiz_ids), dict(quiz_titles or {}), deadlines=dict(deadlines or {}))
    with os.scandir(dropbox) as entries:
        for count, entry in enumerate(entries):
            name = shown_name(entry.name)
            if count >= MAX_FILES:
                report.rejected.append(
                    Rejected("...", f"more than {MAX_FILES} files; rest skipped")
                )
                break
            try:
                data, uid = read_capped(dropbox, entry.name)
                submission = parse_submission(data)
            except SubmissionError as error:
                report.rejected.append(Rejected(name, str(error)))
                continue
            except OSError as error:
                report.rejected.append(Rejected(name, f"cannot read: {error.strerror or error}"))
                continue
            owner = owner_name(uid)
            if owner != submission.user:
                report.impostors.append(
                    Rejected(name, f"names '{submission.user}' but belongs to '{owner}'")
                )
                continue
            row = report.students.setdefault(submission.user, StudentRow(submission.user))
            row.add(submission)
            report.unknown_quizzes.update(
                quiz.id for quiz in submission.quizzes if quiz.id not in report.quiz_ids
            )
    report.rejected.sort(key=lambda r: r.name)
    report.impostors.sort(key=lambda r: r.name)
    return report


# output


def graded_only(report: ClassReport, quiz_id: str) -> ClassReport:
    """The report cut to one quiz and the students with a finished first pass in it.

    Moodle's grade import erases a grade it already holds when the cell is empty, so a CSV
    for import holds no empty score cell: a grade typed by hand for a student without a
    finished first pass here stays as it is."""
    students = {
        user: row
        for user, row in report.students.items()
        if (result := row.result(quiz_id)) is not None and result.first_try is not None
    }
    return replace(report, quiz_ids=[quiz_id], students=students)


def report_csv(report: ClassReport) -> str:
    """For Moodle's grade import (Grades > Import > CSV file): map `username` to the user
    field and each score column to a grade item. A quiz without a finished first pass
    (not started, or in progress) has empty cells, which Moodle reads as "no grade",
    never a 0 that would count as a failed quiz."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["username"]
    for quiz_id in report.quiz_ids:
        header += [f"{quiz_id} first_try", f"{quiz_id} mastered"]
    header += ["lessons_read", "last_activity"]
    writer.writerow(header)
    for user in sorted(report.students):
        row = report.students[user]
        cells = [user]
        for quiz_id in report.quiz_ids:
            quiz = row.result(quiz_id)
            if quiz is None or quiz.first_try is None:
                cells += ["", ""]
            else:
                cells += [str(quiz.first_try), str(quiz.mastered)]
        cells += [str(len(row.lessons_read)), row.last_activity or ""]
        writer.writerow(cells)
    return out.getvalue()


def report_json(report: ClassReport) -> dict[str, Any]:
    students = []
    for user in sorted(report.students):
        row = report.students[user]
        quizzes = {}
        for quiz_id, (latest, when) in sorted(row.quizzes.items()):
            quiz = row.with_grade(latest)
            quizzes[quiz_id] = {
                "questions": quiz.questions,
                "answered": quiz.answered,
                "first_try": quiz.first_try,
                "mastered": quiz.mastered,
                "state": quiz.state,
                "tries": quiz.tries,
                "hints": quiz.hints,
                "reveals": quiz.reveals,
                "seconds": quiz.seconds,
                "last_activity": quiz.last_activity,
                "submitted_at": when.isoformat(),
                "late": report.late(row, quiz_id),
            }
        students.append(
            {
                "user": user,
                "quizzes": quizzes,
                "lessons_read": sorted(row.lessons_read),
                "last_activity": row.last_activity,
                "submissions": row.submissions,
            }
        )
    return {
        "quizzes": [{"id": q, "title": report.quiz_titles.get(q, q)} for q in report.quiz_ids],
        "students": students,
        "owner_mismatches": [{"file": r.name, "problem": r.reason} for r in report.impostors],
        "rejected": [{"file": r.name, "problem": r.reason} for r in report.rejected],
        "unknown_quizzes": sorted(report.unknown_quizzes),
    }


def report_table(report: ClassReport) -> str:
    """Plain text: `first-try/mastered of questions` per quiz; `*` marks a late submission."""
    headers = ["student", *report.quiz_ids, "lessons", "last activity (UTC)"]
    rows: list[list[str]] = []
    for user in sorted(report.students):
        row = report.students[user]
        cells = [user]
        for quiz_id in report.quiz_ids:
            cells.append(_table_cell(report, row, quiz_id))
        cells += [str(len(row.lessons_read)), _utc(row.last_activity)]
        rows.append(cells)
    lines = _columns([headers, *rows]) if rows else ["No submissions yet."]
    if rows:
        lines += [
            "",
            "Each quiz: first-try score / mastered of questions; * after its deadline;",
            "in progress i/n: i of n questions answered in the first pass, no score yet.",
        ]
    lines += _listing(
        "Files whose owner is not the student they name (left out):", report.impostors
    )
    lines += _listing("Files that are not valid submissions (left out):", report.rejected)
    if report.unknown_quizzes:
        lines += ["", "Quiz ids not in this course: " + ", ".join(sorted(report.unknown_quizzes))]
    return "\n".join(lines)


def _utc(stamp: str | None) -> str:
    """A time as UTC: a stamp written with another offset is converted, not cut."""
    if stamp is None:
        return "-"
    return _time(stamp).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _table_cell(report: ClassReport, row: StudentRow, quiz_id: str) -> str:
    quiz = row.result(quiz_id)
    if quiz is None or (quiz.first_try is None and quiz.state != "in progress"):
        return "-"
    if quiz.first_try is None:
        return f"in progress {quiz.answered}/{quiz.questions}"
    late = "*" if report.late(row, quiz_id) else ""
    return f"{quiz.first_try}/{quiz.mastered} of {quiz.questions}{late}"


def _listing(title: str, entries: Iterable[Rejected]) -> list[str]:
    entries = list(entries)
    if not entries:
        return []
    return ["", title, *(f"  {entry.name}: {entry.reason}" for entry in entries)]


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
