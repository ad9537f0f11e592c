"""`attn-tui class recheck`: run each submitted solution again, sandboxed, on fresh seeds.

A student's app says what its check found; the teacher's account checks the same code
(its sha256 proves it is the same) on held-out inputs. Rows where the two disagree come
first. Student code never runs here without bwrap: the caller refuses below it.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tui_course.classroom.report import (
    arrival_time,
    natural_key,
    newest_per_owner,
    owner_name,
    read_capped,
    shown_name,
)
from tui_course.classroom.submission import (
    CodeSubmitted,
    Submission,
    SubmissionError,
    parse_submission,
)
from tui_course.content.models import Course, Question
from tui_course.text.safe import one_line

MAX_FILES_PER_OWNER = 200  # of each owner's newest files, the latest valid one is read


@dataclass(frozen=True)
class RecheckRow:
    user: str
    question: str  # quiz/number
    claimed: str
    rechecked: str
    sha256: str
    message: str

    @property
    def agrees(self) -> bool:
        return self.claimed == self.rechecked


def latest_submissions(
    dropbox: Path, students: Collection[str] | None = None
) -> tuple[dict[str, Submission], list[str]]:
    """Each student's newest valid submission (only `students`' when given), its code
    the newest entry of each question from any of their files, and the files refused:
    each forgery once, the rest one line per owner, so a student's thousand junk files
    cost the teacher one line. The app's submission after a quiz carries that quiz's
    code only, so the newest file alone would drop the code of every earlier quiz."""
    latest: dict[str, Submission] = {}
    arrivals: dict[str, dt.datetime] = {}
    code: dict[str, dict[tuple[str, int], tuple[dt.datetime, CodeSubmitted]]] = {}
    forged: list[str] = []
    first_problem: dict[str, str] = {}  # per owner, said when it is the only one
    junk_count: dict[str, int] = {}
    outsiders: dict[str, int] = {}

    def not_submission(owner: str, problem: str) -> None:
        junk_count[owner] = junk_count.get(owner, 0) + 1
        first_problem.setdefault(owner, problem)

    listing = newest_per_owner(
        dropbox, MAX_FILES_PER_OWNER, lambda odd: not_submission(odd.owner, odd.name)
    )
    for uid, files in listing.owners.items():
        owner = owner_name(uid)
        for entry in files:  # newest first: a student's latest valid file is among them
            name = shown_name(entry.name)
            try:
                data, info = read_capped(dropbox, entry.name)
                submission = parse_submission(data)
            except (SubmissionError, OSError) as error:
                reason = error.strerror if isinstance(error, OSError) else str(error)
                not_submission(owner, f"{name}: {reason or error}")
                continue
            if owner_name(info.st_uid) != submission.user:
                forged.append(f"{name}: names '{submission.user}' but belongs to {owner}")
                continue
            if students is not None and submission.user not in students:
                outsiders[owner] = outsiders.get(owner, 0) + 1
                continue
            # The latest by arrival (the file's ctime), not by a date the student wrote.
            arrived = arrival_time(info)
            known = arrivals.get(submission.user)
            if known is None or arrived > known:
                latest[submission.user] = submission
                arrivals[submission.user] = arrived
            questions = code.setdefault(submission.user, {})
            for answer in latest_code(submission.code):
                key = (answer.quiz_id, answer.question)
                if key not in questions or arrived > questions[key][0]:
                    questions[key] = (arrived, answer)
    for user, questions in code.items():
        if user in latest:
            newest = tuple(answer for _, answer in (questions[key] for key in sorted(questions)))
            latest[user] = replace(latest[user], code=newest)
    # in the report's order (s2 before s10), each kind of problem together
    refused = sorted(forged, key=natural_key)
    for owner, count in sorted(junk_count.items(), key=lambda item: natural_key(item[0])):
        if count == 1:
            refused.append(f"{first_problem[owner]} ({owner})")
        else:
            refused.append(f"{owner}: {count:,} files that are not submissions")
    for uid, left in sorted(
        listing.left_out.items(), key=lambda item: natural_key(owner_name(item[0]))
    ):
        refused.append(
            f"{owner_name(uid)}: {left:,} older file(s) not read (past the newest"
            f" {MAX_FILES_PER_OWNER})"
        )
    for owner, count in sorted(outsiders.items(), key=lambda item: natural_key(item[0])):
        refused.append(f"{owner}: {count} submission(s) of an account outside the students' group")
    return latest, refused


def _question(course: Course, quiz_id: str, number: int) -> Question | None:
    for quiz in course.quizzes:
        if quiz.id == quiz_id and 1 <= number <= len(quiz.questions):
            question = quiz.questions[number - 1]
            return question if question.code is not None else None
    return None


def recheck(
    submissions: dict[str, Submission],
    course: Course,
    checker: Any,
    seed_offset: int,
    quiz_id: str | None = None,
) -> list[RecheckRow]:
    """Each student's latest code per question checked again; mismatches first."""
    rows = []
    for user in sorted(submissions):
        for entry in latest_code(submissions[user].code):
            if quiz_id is not None and entry.quiz_id != quiz_id:
                continue
            where = f"{entry.quiz_id}/{entry.question}"
            question = _question(course, entry.quiz_id, entry.question)
            digest = hashlib.sha256(entry.code.encode("utf-8", "surrogatepass")).hexdigest()
            if question is None:
                rows.append(RecheckRow(user, where, entry.outcome, "unknown question", digest, ""))
                continue
            if digest != entry.sha256:
                message = "the code does not match its sha256 (changed after the check)"
                rows.append(
                    RecheckRow(user, where, entry.outcome, "hash mismatch", digest, message)
                )
                continue
            rows.append(_checked(checker, question, entry, user, where, digest, seed_offset))
    rows.sort(key=lambda row: (row.agrees, row.user, row.question))
    return rows


def latest_code(entries: Sequence[CodeSubmitted]) -> list[CodeSubmitted]:
    """The last entry per question, in the file's order: the app sends one per question,
    and a file holding a thousand for one question costs one check, not a thousand."""
    last: dict[tuple[str, int], CodeSubmitted] = {}
    for entry in entries:
        last[(entry.quiz_id, entry.question)] = entry
    return list(last.values())


def _checked(
    checker: Any,
    question: Question,
    entry: CodeSubmitted,
    user: str,
    where: str,
    digest: str,
    seed_offset: int,
) -> RecheckRow:
    try:
        verdict = checker.check(question, entry.code, seed_offset=seed_offset)
    except Exception as error:  # one student's code must not cost the class its table
        message = f"the check itself failed ({type(error).__name__})"
        return RecheckRow(user, where, entry.outcome, "check failed", digest, message)
    return RecheckRow(user, where, entry.outcome, str(verdict.outcome), digest, verdict.message)


COLUMNS = ("user", "question", "claimed", "rechecked", "agrees", "sha256", "message")


def _cells(row: RecheckRow) -> list[str]:
    return [
        one_line(row.user),
        row.question,
        row.claimed,
        row.rechecked,
        "yes" if row.agrees else "NO",
        row.sha256[:12],
        one_line(row.message)[:120],
    ]


def recheck_csv(rows: Sequence[RecheckRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        cells = _cells(row)
        cells[5] = row.sha256
        writer.writerow(cells)
    return out.getvalue()


def recheck_table(rows: Sequence[RecheckRow]) -> str:
    table = [list(COLUMNS[:6])] + [_cells(row)[:6] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(6)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in table
    ]
    mismatches = sum(not row.agrees for row in rows)
    lines.append(f"{len(rows)} solution(s) rechecked, {mismatches} disagree with their claim")
    return "\n".join(lines)
