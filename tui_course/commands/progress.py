"""`attn-tui progress`: lessons read, quiz scores, tries, hints and time: table, CSV or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tui_course.commands.common import PROG, add_common, content_dir, fail, recording_dir


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("progress", help="show saved progress")
    parser.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table to read, csv for a spreadsheet, json for a script (default table)",
    )
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.content.course import load_course
    from tui_course.progress.report import progress_report
    from tui_course.progress.store import ProgressStore, StoreError

    course = load_course(content_dir(args))
    data = recording_dir(args)
    try:
        with ProgressStore(data) as store:
            if store.notice:
                print(f"{PROG}: {store.notice}", file=sys.stderr)
            report = progress_report(course, store)
    except (StoreError, OSError) as error:
        return fail(f"cannot open progress store in {data}: {error}")
    if args.format == "json":
        print(json.dumps(report, indent=2))
    elif args.format == "csv":
        print(progress_csv(report), end="")
    else:
        print(progress_table(report))
    return 0


QUIZ_COLUMNS = (
    "state",
    "answered",
    "first_try",
    "mastered",
    "best",
    "questions",
    "tries",
    "hints",
    "reveals",
    "seconds",
    "last_activity",
)


def _cell(value: object) -> object:
    return "" if value is None else value


def progress_csv(report: dict[str, Any]) -> str:
    """One row per lesson and quiz, each with the user's login name (for a class sheet).
    Titles come from content: csv_text keeps a `=HYPERLINK(...)` title from running."""
    from tui_course.text.csvfile import csv_text

    rows: list[list[object]] = [["user", "kind", "id", "title", "read", *QUIZ_COLUMNS]]
    user = report["user"]
    blank: list[object] = [""] * len(QUIZ_COLUMNS)
    for lesson in report["lessons"]:
        row = [user, "lesson", lesson["id"], lesson["title"], lesson["read"], *blank]
        row[-1] = _cell(lesson["last_activity"])
        rows.append(row)
    for quiz in report["quizzes"]:
        rows.append(
            [user, "quiz", quiz["id"], quiz["title"], ""]
            + [_cell(quiz[column]) for column in QUIZ_COLUMNS]
        )
    return csv_text(rows)


def _score(value: object, total: object) -> str:
    return "-" if value is None else f"{value}/{total}"


def quiz_standing(quiz: dict[str, Any]) -> str:
    """A part-way first pass is "in progress i/n", never a score."""
    if quiz["state"] == "in progress":
        return f"in progress {quiz['answered']}/{quiz['questions']}"
    return str(quiz["state"])


def _minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


_TITLE_CAP = 60


def _fit(text: str, width: int) -> str:
    """Text cut to width, saying so with "..." when it had to be cut."""
    return text if len(text) <= width else text[: width - 3] + "..."


def progress_table(report: dict[str, Any]) -> str:
    lines = [f"Progress of {report['user']}", "", "Lessons"]
    # columns as wide as their longest entry: a cut title or id would hide what it names
    id_width = max([24, *(len(str(lesson["id"])) for lesson in report["lessons"])])
    title_width = min(
        _TITLE_CAP, max([5, *(len(str(lesson["title"])) for lesson in report["lessons"])])
    )
    lines.append(f"  {'':3} {'id':<{id_width}} {'title':<{title_width}} read")
    for lesson in report["lessons"]:
        read = "yes" if lesson["read"] else "no"
        lines.append(
            f"  {lesson['order']!s:>3} {lesson['id']!s:<{id_width}}"
            f" {_fit(str(lesson['title']), title_width):<{title_width}} {read}"
        )
    quiz_width = max([13, *(len(str(quiz["id"])) for quiz in report["quizzes"])])
    lines += [
        "",
        "Quizzes (1st try: right on try 1 in the first pass, the graded score;",
        "         mastered: right without showing the answer; best: in one full pass)",
        f"{'id':<{quiz_width}} {'state':<17} {'1st try':>7} {'mastered':>8} {'best':>5}"
        f" {'tries':>5} {'hints':>5} {'reveals':>7} {'m:ss':>5}",
    ]
    for quiz in report["quizzes"]:
        n = quiz["questions"]
        lines.append(
            f"{quiz['id']!s:<{quiz_width}} {quiz_standing(quiz):<17}"
            f" {_score(quiz['first_try'], n):>7} {_score(quiz['mastered'], n):>8}"
            f" {_score(quiz['best'], n):>5} {quiz['tries']!s:>5} {quiz['hints']!s:>5}"
            f" {quiz['reveals']!s:>7} {_minutes(quiz['seconds']):>5}"
        )
    lines += ["", *training_lines(report.get("training_runs", []))]
    return "\n".join([*lines, *failed_lines(report.get("failed_training_runs", []))])


def failed_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Runs that ended in an error, each on one line: when, how far, why (and the log)."""
    from tui_course.text.safe import plain_text

    if not rows:
        return []
    lines = ["", f"Failed training runs ({len(rows)}):"]
    for row in rows:
        done = len(row["epochs"])
        lines.append(
            f"  {plain_text(str(row['finished_at']))}  after {done} epoch(s):"
            f" {plain_text(str(row['reason']))} (log: {plain_text(str(row['log']))})"
        )
    return lines


def training_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The same table the training lab shows, from the report's rows."""
    from tui_course.progress.records import TrainingRecord
    from tui_course.render.training import runs_table

    records = [TrainingRecord(**{**row, "epochs": tuple(row["epochs"])}) for row in rows]
    return ["Training", *runs_table(records, 80).splitlines()]
