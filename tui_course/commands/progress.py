"""`attn-tui progress`: what is done, scores and attempts, as a table, CSV or JSON."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Any

from tui_course.commands.common import PROG, add_common, content_dir, data_dir, fail


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("progress", help="show saved progress")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.content.course import load_course
    from tui_course.progress.report import progress_report
    from tui_course.progress.store import ProgressStore, StoreError

    course = load_course(content_dir(args))
    data = data_dir(args)
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


def progress_csv(report: dict[str, list[dict[str, object]]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["kind", "id", "title", "done", "best_score", "questions", "mastered", "attempts"]
    )
    for lesson in report["lessons"]:
        writer.writerow(["lesson", lesson["id"], lesson["title"], lesson["done"], "", "", "", ""])
    for quiz in report["quizzes"]:
        writer.writerow(
            [
                "quiz",
                quiz["id"],
                quiz["title"],
                quiz["done"],
                "" if quiz["best_score"] is None else quiz["best_score"],
                quiz["questions"],
                quiz["mastered"],
                quiz["attempts"],
            ]
        )
    return out.getvalue()


def progress_table(report: dict[str, list[dict[str, object]]]) -> str:
    lines = ["Lessons", f"  {'':3} {'id':<24} {'title':<40} done"]
    for lesson in report["lessons"]:
        done = "yes" if lesson["done"] else "no"
        lines.append(
            f"  {lesson['order']!s:>3} {lesson['id']!s:<24} {str(lesson['title'])[:40]:<40} {done}"
        )
    lines += [
        "",
        "Quizzes",
        f"  {'id':<16} {'title':<36} {'best':>6} {'mastered':>9} {'attempts':>9}",
    ]
    for quiz in report["quizzes"]:
        best = "-" if quiz["best_score"] is None else f"{quiz['best_score']}/{quiz['questions']}"
        mastered = f"{quiz['mastered']}/{quiz['questions']}"
        lines.append(
            f"  {quiz['id']!s:<16} {str(quiz['title'])[:36]:<36} {best:>6} {mastered:>9}"
            f" {quiz['attempts']!s:>9}"
        )
    return "\n".join(lines)
