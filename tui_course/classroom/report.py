"""The class report: one row per student from the drop-box, latest submission per quiz wins.

Every file is read with a size cap, without following links and without blocking on
a FIFO; a file that is not a valid submission, or whose owner is not the student it
names, is listed and left out of the grades. Nothing in the drop-box can crash it or
hide another student's grades: files are grouped by the owner the kernel records, each
owner's newest files are read up to a count and a byte cap, each inode once (hard
links), and a submission's time is when the file arrived (its ctime, which no student
can set back), never the date written inside it.

What a teacher must see is never cut or pushed out by volume: forgeries (a file whose
owner is not the student it names) and impossible scores come first, each listed;
everything else that is not a submission (junk, FIFOs, links, files too large, which
are never read) is one line per owner with a count and a size. With the class's
students group, only its members are students: submissions of other accounts (root,
a teacher trying the app) are counted per owner and left out.
"""

from __future__ import annotations

import datetime as dt
import heapq
import os
import pwd
import re
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tui_course.classroom.submission import (
    MAX_SUBMISSION_BYTES,
    ImpossibleScore,
    QuizResult,
    Submission,
    SubmissionError,
    in_transit,
    parse_submission,
)
from tui_course.content.text import strip_control

MAX_FILES_PER_OWNER = 2_000  # a term of submissions is a few hundred
MAX_BYTES_PER_OWNER = 32 * 1024 * 1024
MAX_LISTED = 200  # files that are not submissions kept by name (JSON); the rest counted
MAX_UNKNOWN_QUIZZES = 50  # quiz ids not in the course, kept by name
MAX_EXAMPLES = 3  # file names shown in one owner's summary line
# a `.part-` file this close to now (either side: another server's clock) is a submission
# being written; an older one was left by a writer that died, and is shown like junk
IN_TRANSIT_SECONDS = 600
# `.part-` files of one account passed over in one look: its app writes one at a time, so
# a student who keeps touching hidden files (a new ctime each time) hides at most this many
MAX_IN_TRANSIT = 4


@dataclass(frozen=True)
class Rejected:
    name: str
    reason: str
    owner: str = ""  # the account the kernel says owns the file
    named: str = ""  # a forgery: the student the file names


@dataclass
class OwnerJunk:
    """One owner's files that are not submissions: how many, how large, a few names."""

    files: int = 0
    bytes: int = 0
    examples: list[Rejected] = field(default_factory=list)


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
    # quizzes whose latest submission holds a code pass checked without bwrap (limits only)
    unsandboxed: frozenset[str] = frozenset()
    code_at: dt.datetime | None = None

    def add(
        self, submission: Submission, arrived: dt.datetime, known: Iterable[str] | None = None
    ) -> None:
        """Count one submission that arrived at `arrived`; only quiz ids in `known` are kept."""
        keep = None if known is None else set(known)
        self.submissions += 1
        when = arrived
        for quiz in submission.quizzes:
            if keep is not None and quiz.id not in keep:
                continue
            held = self.quizzes.get(quiz.id)
            if held is None or held[1] <= when:
                self.quizzes[quiz.id] = (quiz, when)
            first = self.graded.get(quiz.id)
            if quiz.first_try is not None and (first is None or when < first[1]):
                self.graded[quiz.id] = (quiz.first_try, when)
        if self.lessons_at is None or self.lessons_at <= when:
            self.lessons_read, self.lessons_at = submission.lessons_read, when
        if self.code_at is None or self.code_at <= when:
            self.code_at = when
            self.unsandboxed = frozenset(
                entry.quiz_id
                for entry in submission.code
                if entry.outcome == "passed"
                and entry.sandbox != "bwrap"
                and (keep is None or entry.quiz_id in keep)
            )
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
    rejected: list[Rejected] = field(default_factory=list)  # not submissions, up to MAX_LISTED
    impostors: list[Rejected] = field(default_factory=list)  # owner is not the named user
    impossible: list[Rejected] = field(default_factory=list)  # more right than questions
    junk: dict[str, OwnerJunk] = field(default_factory=dict)  # owner -> not submissions
    outsiders: dict[str, int] = field(default_factory=dict)  # owner -> outside the group
    unknown_quizzes: set[str] = field(default_factory=set)
    deadlines: dict[str, dt.datetime] = field(default_factory=dict)
    unlisted: int = 0  # files that are not submissions past MAX_LISTED, counted only
    unknown_more: int = 0  # mentions of unknown quiz ids past MAX_UNKNOWN_QUIZZES
    skipped: dict[str, int] = field(default_factory=dict)  # owner -> files not read (caps)
    hard_links: int = 0  # extra names of a file already read (counted once)

    def late(self, row: StudentRow, quiz_id: str) -> bool:
        """Judged on the submission whose first-try score counts: a retry or review sent
        after the deadline does not make a quiz finished in time late."""
        deadline = self.deadlines.get(quiz_id)
        held = row.graded.get(quiz_id) or row.quizzes.get(quiz_id)
        return deadline is not None and held is not None and held[1] > deadline

    def late_quizzes(self, row: StudentRow) -> list[str]:
        return [quiz_id for quiz_id in self.quiz_ids if self.late(row, quiz_id)]

    def not_a_submission(self, entry: Rejected, size: int) -> None:
        """Counted against its owner; kept by name up to MAX_LISTED in all."""
        junk = self.junk.setdefault(entry.owner, OwnerJunk())
        junk.files += 1
        junk.bytes += size
        if len(junk.examples) < MAX_EXAMPLES:
            junk.examples.append(entry)
        if len(self.rejected) >= MAX_LISTED:
            self.unlisted += 1
        else:
            self.rejected.append(entry)

    def note_unknown(self, quiz_id: str) -> None:
        if quiz_id in self.unknown_quizzes:
            return
        if len(self.unknown_quizzes) < MAX_UNKNOWN_QUIZZES:
            self.unknown_quizzes.add(quiz_id)
        else:
            self.unknown_more += 1

    def partial(self) -> list[str]:
        """Why some files were left out of the grades (empty: every file counted)."""
        reasons = []
        problems = len(self.rejected) + len(self.impostors) + len(self.impossible) + self.unlisted
        if problems:
            reasons.append(f"{problems} file(s) not valid or not the named student's")
        for owner, count in sorted(self.skipped.items()):
            reasons.append(
                f"{count} file(s) of {owner} not read (over the cap of {MAX_FILES_PER_OWNER}"
                f" files or {MAX_BYTES_PER_OWNER // (1024 * 1024)} MiB per student)"
            )
        return reasons


def shown_name(name: str) -> str:
    """A file name as one printable line: undecodable bytes, control characters and
    newlines cannot reach the teacher's terminal."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    text = strip_control(text).replace("\n", "?").replace("\t", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def natural_key(name: str) -> list[Any]:
    """c1, c2, c10: digit runs compare as numbers (re.split alternates text and digits)."""
    return [int(part) if i % 2 else part.lower() for i, part in enumerate(re.split(r"(\d+)", name))]


def _time(stamp: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(stamp)
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def arrival_time(info: os.stat_result) -> dt.datetime:
    """When the file reached the drop-box as the kernel saw it: ctime, which touch and
    utime cannot set back (a student can only make it later)."""
    return dt.datetime.fromtimestamp(info.st_ctime_ns / 1e9, dt.UTC)


def owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def being_written(name: str, ctime_ns: int, now_ns: int) -> bool:
    """A student's submission still on its way into the drop-box (see submission.deliver):
    neither read, counted nor removed until it has its final name."""
    return in_transit(name) and abs(now_ns - ctime_ns) < IN_TRANSIT_SECONDS * 1e9


@dataclass
class InTransit:
    """Which `.part-` files of `directory` one look passes over as submissions on their
    way in: young (either clock), a regular file no larger than a submission, not already
    a whole forgery or impossible score (the app writes neither), and at most
    MAX_IN_TRANSIT per owner. A young name alone is no proof: a student's shell can keep a
    hidden file's ctime new for ever (touch in a loop), and the report and clean would
    never see it."""

    directory: Path
    now_ns: int = field(default_factory=lambda: time.time_ns())
    per_owner: dict[int, int] = field(default_factory=dict)

    def passes_over(self, name: str, info: os.stat_result) -> bool:
        """True for a file to leave alone in this look; counts it against its owner."""
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SUBMISSION_BYTES:
            return False  # the app writes a regular file: a folder's contents have no cap
        if not being_written(name, info.st_ctime_ns, self.now_ns):
            return False
        seen = self.per_owner.get(info.st_uid, 0)
        if seen >= MAX_IN_TRANSIT:
            return False
        self.per_owner[info.st_uid] = seen + 1  # read or not: a flood costs a few reads
        return not _forged_or_impossible(self.directory, name)


def _forged_or_impossible(directory: Path, name: str) -> bool:
    """A file that is already a whole submission naming another account than its owner,
    or with an impossible score: half a file is neither, so it is never one on its way."""
    try:
        data, info = read_capped(directory, name)
        submission = parse_submission(data)
    except ImpossibleScore:
        return True
    except (SubmissionError, OSError, ValueError, OverflowError, TypeError, RecursionError):
        return False
    return owner_name(info.st_uid) != submission.user


def read_capped(directory: Path, name: str) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file and its fstat; OSError/SubmissionError otherwise."""
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
        return data, info
    finally:
        os.close(fd)


@dataclass(frozen=True, order=True)
class DropEntry:
    """A regular file of the drop-box, as listed (ordered by arrival: its ctime)."""

    ctime_ns: int
    name: str  # as listed (bytes-safe str)
    size: int
    inode: tuple[int, int]  # (device, inode): one file under two names is read once


@dataclass
class DropListing:
    """Each owner's newest regular files, however many files the drop-box holds."""

    owners: dict[int, list[DropEntry]]  # uid -> newest first, at most the cap asked for
    left_out: dict[int, int]  # uid -> older regular files past that cap
    hard_links: int  # extra names of a file already kept


def newest_per_owner(dropbox: Path, per_owner: int, odd: Callable[[Rejected], None]) -> DropListing:
    """Every entry of the drop-box is looked at (one lstat each, the whole folder): a cap in
    listing order let one student's million empty files push every file listed after them,
    a forgery or another student's submission, out of the report. Memory stays bounded: of
    each owner only the newest `per_owner` files are kept (a heap), the rest counted. What
    is not a regular file is passed to `odd` as it is met; a submission still being
    written (its hidden `.part-` name, see submission.deliver) is passed over."""
    heaps: dict[int, list[DropEntry]] = {}
    left_out: dict[int, int] = {}
    in_transit = InTransit(dropbox)
    with os.scandir(dropbox) as entries:
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as error:
                odd(Rejected(shown_name(entry.name), f"cannot read: {error.strerror}", "unknown"))
                continue
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
                reason = (
                    "cannot read: a symbolic link"
                    if stat.S_ISLNK(info.st_mode)
                    else "not a regular file"
                )
                odd(Rejected(shown_name(entry.name), reason, owner_name(info.st_uid)))
                continue
            if in_transit.passes_over(entry.name, info):
                continue
            heap = heaps.setdefault(info.st_uid, [])
            item = DropEntry(info.st_ctime_ns, entry.name, info.st_size, (info.st_dev, info.st_ino))
            if len(heap) < per_owner:
                heapq.heappush(heap, item)
                continue
            heapq.heappushpop(heap, item)  # the oldest of them goes
            left_out[info.st_uid] = left_out.get(info.st_uid, 0) + 1
    owners: dict[int, list[DropEntry]] = {}
    seen: set[tuple[int, int]] = set()
    hard_links = 0
    for uid, heap in heaps.items():
        kept = []
        for item in sorted(heap, reverse=True):
            if item.inode in seen:
                hard_links += 1
                continue
            seen.add(item.inode)
            kept.append(item)
        owners[uid] = kept
    return DropListing(owners, left_out, hard_links)


def _within_caps(files: list[DropEntry]) -> tuple[list[DropEntry], int]:
    """An owner's newest files (given newest first) up to the byte cap (oldest first), and
    how many were left out."""
    chosen: list[DropEntry] = []
    used = 0
    for entry in files:
        size = min(entry.size, MAX_SUBMISSION_BYTES + 1)
        if used + size > MAX_BYTES_PER_OWNER:
            break
        chosen.append(entry)
        used += size
    chosen.reverse()
    return chosen, len(files) - len(chosen)


def build_report(
    dropbox: Path,
    quiz_ids: Sequence[str],
    quiz_titles: dict[str, str] | None = None,
    deadlines: dict[str, dt.datetime] | None = None,
    members: Iterable[str] = (),
    only_members: bool = False,
) -> ClassReport:
    """Read every file of the drop-box; raise OSError only when the folder cannot be listed.

    `members` (the class's student group) get a row even with no submission; with
    `only_members`, they are the only students (others' submissions go to `outsiders`)."""
    report = ClassReport(list(quiz_ids), dict(quiz_titles or {}), deadlines=dict(deadlines or {}))
    known = set(report.quiz_ids)
    members = list(members)
    students = set(members)
    listing = newest_per_owner(
        dropbox, MAX_FILES_PER_OWNER, lambda odd: report.not_a_submission(odd, 0)
    )
    report.hard_links = listing.hard_links
    for uid, files in listing.owners.items():
        chosen, left_out = _within_caps(files)
        left_out += listing.left_out.get(uid, 0)
        owner = owner_name(uid)
        if left_out:
            report.skipped[owner] = left_out
        for entry in chosen:
            name = shown_name(entry.name)
            try:
                data, info = read_capped(dropbox, entry.name)
                submission = parse_submission(data)
                arrived = arrival_time(info)
            except ImpossibleScore as error:
                report.impossible.append(Rejected(name, str(error), owner))
                continue
            except SubmissionError as error:
                report.not_a_submission(Rejected(name, str(error), owner), entry.size)
                continue
            except OSError as error:
                reason = f"cannot read: {error.strerror or error}"
                report.not_a_submission(Rejected(name, reason, owner), entry.size)
                continue
            except (ValueError, OverflowError, TypeError, RecursionError) as error:
                # a value no check above foresaw: this file is out, the report goes on
                reason = f"not a valid submission ({type(error).__name__})"
                report.not_a_submission(Rejected(name, reason, owner), entry.size)
                continue
            if owner_name(info.st_uid) != submission.user:
                reason = f"names '{submission.user}' but belongs to '{owner}'"
                report.impostors.append(Rejected(name, reason, owner, submission.user))
                continue
            if only_members and submission.user not in students:
                report.outsiders[owner] = report.outsiders.get(owner, 0) + 1
                continue
            row = report.students.setdefault(submission.user, StudentRow(submission.user))
            row.add(submission, arrived, known)
            for quiz in submission.quizzes:
                if quiz.id not in known:
                    report.note_unknown(quiz.id)
    for user in members:
        report.students.setdefault(user, StudentRow(user))
    report.rejected.sort(key=lambda r: r.name)
    report.impostors.sort(key=lambda r: (natural_key(r.owner), natural_key(r.named), r.name))
    report.impossible.sort(key=lambda r: (natural_key(r.owner), r.name))
    return report


def group_members(group: str) -> list[str]:
    """Every account in a Unix group: listed members and those whose primary group it is.
    Raises KeyError for an unknown group."""
    import grp

    entry = grp.getgrnam(group)
    names = set(entry.gr_mem)
    names.update(account.pw_name for account in pwd.getpwall() if account.pw_gid == entry.gr_gid)
    return sorted(names, key=natural_key)


def students_in_order(report: ClassReport) -> list[str]:
    return sorted(report.students, key=natural_key)


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
    never a 0 that would count as a failed quiz. `late` lists the quizzes whose counted
    submission arrived after their deadline (map it to nothing, or to a text item)."""
    from tui_course.text.csvfile import csv_text

    header: list[object] = ["username"]
    for quiz_id in report.quiz_ids:
        header += [f"{quiz_id} first_try", f"{quiz_id} mastered"]
    header += ["lessons_read", "last_activity", "late", "passed_without_bwrap"]
    rows: list[list[object]] = [header]
    for user in students_in_order(report):
        row = report.students[user]
        cells: list[object] = [user]
        for quiz_id in report.quiz_ids:
            quiz = row.result(quiz_id)
            if quiz is None or quiz.first_try is None:
                cells += ["", ""]
            else:
                cells += [quiz.first_try, quiz.mastered]
        cells += [
            len(row.lessons_read) if row.submissions else "",
            row.last_activity or "",
            " ".join(report.late_quizzes(row)),
            " ".join(sorted(row.unsandboxed)),
        ]
        rows.append(cells)
    return csv_text(rows)


def report_json(report: ClassReport) -> dict[str, Any]:
    students = []
    for user in students_in_order(report):
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
                "arrived_at": when.isoformat(),  # the file's ctime, not what it says
                "late": report.late(row, quiz_id),
                "passed_without_bwrap": quiz_id in row.unsandboxed,
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
        "owner_mismatches": [
            {"file": r.name, "problem": r.reason, "owner": r.owner, "names": r.named}
            for r in report.impostors
        ],
        "impossible_scores": [
            {"file": r.name, "problem": r.reason, "owner": r.owner} for r in report.impossible
        ],
        "rejected": [
            {"file": r.name, "problem": r.reason, "owner": r.owner} for r in report.rejected
        ],
        "problems_not_listed": report.unlisted,
        "not_submissions": {
            owner: {"files": junk.files, "bytes": junk.bytes}
            for owner, junk in sorted(report.junk.items(), key=lambda item: natural_key(item[0]))
        },
        "outside_students_group": dict(sorted(report.outsiders.items())),
        "skipped": dict(sorted(report.skipped.items())),
        "hard_links": report.hard_links,
        "unknown_quizzes": sorted(report.unknown_quizzes),
        "unknown_quizzes_not_listed": report.unknown_more,
        "partial": report.partial(),
    }


def report_table(report: ClassReport) -> str:
    """Plain text: `first-try/mastered of questions` per quiz; `*` marks a late submission,
    `!` a code pass checked without bwrap."""
    headers = ["student", *report.quiz_ids, "lessons", "last activity (UTC)"]
    rows: list[list[str]] = []
    for user in students_in_order(report):
        row = report.students[user]
        cells = [user]
        for quiz_id in report.quiz_ids:
            cells.append(_table_cell(report, row, quiz_id))
        lessons = str(len(row.lessons_read)) if row.submissions else "-"
        cells += [lessons, _utc(row.last_activity)]
        rows.append(cells)
    lines = _columns([headers, *rows]) if rows else ["No submissions yet."]
    if rows:
        lines += [
            "",
            "Each quiz: first-try score / mastered of questions; * arrived after its deadline;",
            "in progress i/n: i of n questions answered in the first pass, no score yet.",
        ]
        if any(report.students[user].unsandboxed for user in report.students):
            lines.append(
                "! a code answer passed in a check without bwrap (limits only):"
                " `attn-tui class recheck` runs it again in the sandbox."
            )
    lines += _forgery_lines(report.impostors)
    lines += _impossible_lines(report.impossible)
    lines += _junk_lines(report.junk)
    if report.outsiders:
        lines += ["", "Submissions of accounts outside the students' group (left out):"]
        lines += [
            f"  {owner}: {_count(count, 'file')}"
            for owner, count in sorted(report.outsiders.items(), key=lambda i: natural_key(i[0]))
        ]
    for owner, count in sorted(report.skipped.items()):
        lines.append(
            f"Not read: {count} file(s) of {owner}, over the per-student cap"
            f" ({MAX_FILES_PER_OWNER} files, {MAX_BYTES_PER_OWNER // (1024 * 1024)} MiB);"
            " `attn-tui class clean` keeps each student's latest"
        )
    if report.unknown_quizzes:
        more = f" and {report.unknown_more} more" if report.unknown_more else ""
        lines += [
            "",
            "Quiz ids not in this course: " + ", ".join(sorted(report.unknown_quizzes)) + more,
        ]
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
    unsandboxed = "!" if quiz_id in row.unsandboxed else ""
    return f"{quiz.first_try}/{quiz.mastered} of {quiz.questions}{late}{unsandboxed}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def size_text(count: int) -> str:
    """Bytes for a person: 20 B, 4.1 kB, 105 MB."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= scale:
            value = count / scale
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    return f"{count} B"


def _names(entries: Sequence[Rejected]) -> str:
    shown = ", ".join(entry.name for entry in entries[:MAX_EXAMPLES])
    return shown + (", ..." if len(entries) > MAX_EXAMPLES else "")


def _by(entries: Iterable[Rejected], key: Any) -> dict[Any, list[Rejected]]:
    groups: dict[Any, list[Rejected]] = {}
    for entry in entries:
        groups.setdefault(key(entry), []).append(entry)
    return groups


def _forgery_lines(entries: Sequence[Rejected]) -> list[str]:
    """Every forgery: one line per file, or per owner and named student when several."""
    if not entries:
        return []
    lines = ["", "Files whose owner is not the student they name (left out):"]
    for (owner, named), group in _by(entries, lambda e: (e.owner, e.named)).items():
        if len(group) == 1:
            lines.append(f"  {group[0].name}: {group[0].reason}")
        else:
            lines.append(
                f"  {owner}: {_count(len(group), 'file')} naming '{named}' ({_names(group)})"
            )
    return lines


def _impossible_lines(entries: Sequence[Rejected]) -> list[str]:
    """Every owner with an impossible score, and what was impossible."""
    if not entries:
        return []
    lines = ["", "Files with impossible scores (left out):"]
    for owner, group in _by(entries, lambda e: e.owner).items():
        if len(group) == 1:
            lines.append(f"  {group[0].name} ({owner}): {group[0].reason}")
        else:
            lines.append(
                f"  {owner}: {_count(len(group), 'file')} ({_names(group)}), e.g. {group[0].reason}"
            )
    return lines


def _junk_lines(junk: dict[str, OwnerJunk]) -> list[str]:
    """One line per owner: however many files, the report stays short."""
    if not junk:
        return []
    lines = ["", "Files that are not valid submissions (left out):"]
    for owner, found in sorted(junk.items(), key=lambda item: natural_key(item[0])):
        what = (
            "file that is not a submission"
            if found.files == 1
            else "files that are not submissions"
        )
        line = f"  {owner}: {found.files:,} {what}, {size_text(found.bytes)}"
        if found.files <= MAX_EXAMPLES:
            line += " (" + "; ".join(f"{e.name}: {e.reason}" for e in found.examples) + ")"
        lines.append(line)
    return lines


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
