"""Submissions: a JSON summary of one student's progress, dropped into the class drop-box.

A student's file is written whole under a hidden name (`.part-<random>`, O_CREAT|O_EXCL,
mode 0640), then given its final name by link(2), which fails rather than replace a file
and is atomic on the file server, so a report on another login server sharing the folder
over NFS never reads half a file; the drop-box's setgid bit gives it the teacher's group.
A write that fails (folder missing, quota, NFS away) never reaches the student as an
error: the payload is kept in `pending/` in their data folder and sent again on the next
start or finish.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import pwd
import re
import secrets
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui_course import __version__
from tui_course.classroom.folder import DROPBOX, dropbox_problem
from tui_course.paths import ensure_private_dir, write_file_safely

FORMAT = "attn-tui-submission"
FORMAT_VERSION = 1
SUBMISSION_MODE = 0o640
PENDING = "pending"
MAX_PENDING = 100  # the store keeps everything; `attn-tui submit` resends it all
MAX_SUBMISSION_BYTES = 512 * 1024
MAX_ITEMS = 1000
USER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}\$?\Z")
ITEM_ID = re.compile(r"^[A-Za-z0-9_.-]{1,80}\Z")
PART_PREFIX = ".part-"
PART_NAME = re.compile(r"^\.part-[0-9a-f]{16}\Z")
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS}


class SubmissionError(ValueError):
    """A drop-box file that is not a valid submission (tampered, foreign, truncated)."""


class ImpossibleScore(SubmissionError):
    """A well-formed submission whose numbers cannot be (more right than questions): its
    owner's own app never writes one, so the teacher sees each, never cut."""


def login_name() -> str:
    """The name the kernel knows this process by: the owner check of the report uses the same."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def _last_attempts(report: Mapping[str, Any]) -> dict[str, str]:
    """The newest attempt time per quiz, for reports that do not carry last_activity yet."""
    latest: dict[str, str] = {}
    for attempt in report.get("attempts", []):
        quiz_id, stamp = attempt.get("quiz_id"), attempt.get("timestamp")
        if isinstance(quiz_id, str) and isinstance(stamp, str):
            latest[quiz_id] = max(latest.get(quiz_id, stamp), stamp)
    return latest


def _quiz_row(quiz: Mapping[str, Any], fallback_activity: str | None = None) -> dict[str, Any]:
    """One quiz of progress_report, as the contract names its keys (older reports fall back)."""
    questions = int(quiz.get("questions", 0))
    mastered = quiz.get("mastered", 0)
    first_try = quiz.get("first_try", quiz.get("best_score"))
    tries = quiz.get("tries", quiz.get("attempts", 0))
    state = quiz.get("state")
    if state is None:
        state = (
            "not started" if not tries else ("finished" if first_try is not None else "in progress")
        )
    return {
        "id": str(quiz["id"]),
        "title": str(quiz.get("title", "")),
        "questions": questions,
        "state": str(state),
        "answered": int(quiz.get("answered", 0)),
        "first_try": None if first_try is None else int(first_try),
        "mastered": int(mastered),
        "best": quiz.get("best", quiz.get("best_score")),
        "tries": int(tries),
        "hints": int(quiz.get("hints", 0)),
        "reveals": int(quiz.get("reveals", 0)),
        "seconds": round(float(quiz.get("seconds", 0.0)), 1),
        "last_activity": quiz.get("last_activity", fallback_activity),
    }


def _lesson_row(lesson: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": str(lesson["id"]),
        "read": bool(lesson.get("read", lesson.get("done", False))),
        "last_activity": lesson.get("last_activity"),
    }


def build_submission(
    report: Mapping[str, Any], quiz_ids: Collection[str] | None = None, user: str | None = None
) -> dict[str, Any]:
    """The payload from progress_report(course, store): every quiz, or only `quiz_ids`."""
    latest = _last_attempts(report)
    quizzes = [
        _quiz_row(quiz, latest.get(quiz.get("id", "")))
        for quiz in report.get("quizzes", [])
        if quiz_ids is None or quiz.get("id") in quiz_ids
    ]
    lessons = [_lesson_row(lesson) for lesson in report.get("lessons", [])]
    code = [
        {key: entry[key] for key in _CODE_KEYS}
        for entry in report.get("code", [])
        if quiz_ids is None or entry.get("quiz_id") in quiz_ids
    ]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "user": user or login_name(),
        "app_version": __version__,
        "submitted_at": _now(),
        "quizzes": quizzes,
        "lessons": lessons,
        "code": code,
    }


_CODE_KEYS = ("quiz_id", "question", "code", "sha256", "outcome", "sandbox", "checked_at")
MAX_CODE_CHARS = 20 * 1024
CODE_OUTCOMES = (
    "passed",
    "failed",
    "error",
    "time limit",
    "memory limit",
    "crashed",
    "sandbox unavailable",
)


def encode_submission(payload: Mapping[str, Any]) -> bytes:
    return (json.dumps(payload, indent=1, ensure_ascii=True) + "\n").encode("ascii")


# writing


@dataclass
class SubmitOutcome:
    delivered: list[Path] = field(default_factory=list)
    pending: int = 0
    error: str | None = None  # why the last try did not reach the drop-box


def dropbox_of(class_dir: Path) -> Path:
    return class_dir / DROPBOX


def _file_name(user: str) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", user)[:64]
    return f"{safe}-{stamp}-{secrets.token_hex(8)}.json"


def dropbox_refusal(dropbox: Path) -> str | None:
    """Why a student must not write into this folder (privacy first), or None."""
    try:
        info = dropbox.lstat()
    except OSError as error:
        return f"{dropbox}: cannot reach the drop-box: {error.strerror or error}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{dropbox}: the drop-box is not a folder"
    problem = dropbox_problem(stat.S_IMODE(info.st_mode))
    return f"{dropbox}: {problem}; tell your teacher" if problem else None


def deliver(dropbox: Path, data: bytes, user: str) -> Path:
    """Write `data` to a hidden file, then link it under a new final name; raise OSError on
    any failure. No lock is involved, so it holds where login servers share the folder."""
    refusal = dropbox_refusal(dropbox)
    if refusal:
        raise PermissionError(refusal)
    part = _write_part(dropbox, data)
    try:
        for _ in range(5):
            path = dropbox / _file_name(user)
            if _linked(part, path):
                return path
    finally:
        _unlink_quietly(part)
    raise FileExistsError(f"{dropbox}: could not find a free file name")


def _write_part(dropbox: Path, data: bytes) -> Path:
    """A new hidden file holding all of `data`, on disk (fsync) before it gets a name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(5):
        part = dropbox / f"{PART_PREFIX}{secrets.token_hex(8)}"
        try:
            fd = os.open(part, flags, SUBMISSION_MODE)
        except FileExistsError:
            continue
        try:
            os.fchmod(fd, SUBMISSION_MODE)  # a umask of 077 would hide it from the teacher
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError:
            os.close(fd)
            _unlink_quietly(part)
            raise
        os.close(fd)
        return part
    raise FileExistsError(f"{dropbox}: could not find a free file name")


def _linked(part: Path, path: Path) -> bool:
    """link(part, path): False when `path` is taken. Over NFS a link whose reply was lost
    is sent again and answers EEXIST although it was made: then `path` is this very file."""
    try:
        os.link(part, path, follow_symlinks=False)
        return True
    except FileExistsError:
        try:
            return os.lstat(path).st_ino == os.lstat(part).st_ino
        except OSError:
            return False
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS or os.path.lexists(path):
            raise
    os.rename(part, path)  # a file system without hard links (CIFS, FAT): still atomic
    return True


def in_transit(name: str) -> bool:
    """A file a student's app is writing right now (its final name comes by link)."""
    return bool(PART_NAME.match(name))


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def pending_dir(data_dir: Path) -> Path:
    return data_dir / PENDING


def pending_files(data_dir: Path) -> list[Path]:
    try:
        found = [p for p in pending_dir(data_dir).iterdir() if p.suffix == ".json" and p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: p.name)


def keep_pending(data_dir: Path, data: bytes, user: str) -> Path:
    folder = ensure_private_dir(pending_dir(data_dir))
    # sorted by name = by time: the zero-padded nanosecond stamp comes first
    name = f"{dt.datetime.now(dt.UTC).timestamp() * 1e9:020.0f}-{_file_name(user)}"
    write_file_safely(folder / name, data, 0o600)
    for old in pending_files(data_dir)[:-MAX_PENDING]:
        _unlink_quietly(old)
    return folder / name


def _send_pending(dropbox: Path, data_dir: Path, user: str, outcome: SubmitOutcome) -> None:
    for path in pending_files(data_dir):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        outcome.delivered.append(deliver(dropbox, data, user))
        _unlink_quietly(path)


def _describe(error: OSError, dropbox: Path) -> str:
    if error.filename is None and error.strerror is None:
        return str(error)  # our own refusal, already a sentence
    return f"{error.filename or dropbox}: {error.strerror or error}"


def submit(payload: Mapping[str, Any] | None, class_dir: Path, data_dir: Path) -> SubmitOutcome:
    """Send what is pending, then `payload` (if any). Never raises for a drop-box failure:
    the payload is kept in pending/ and the outcome says why."""
    user = login_name()
    data = None if payload is None else encode_submission(payload)
    outcome = SubmitOutcome()
    dropbox = dropbox_of(class_dir)
    try:
        _send_pending(dropbox, data_dir, user, outcome)
        if data is not None:
            outcome.delivered.append(deliver(dropbox, data, user))
            data = None
    except OSError as error:
        outcome.error = _describe(error, dropbox)
        if data is not None:
            try:
                keep_pending(data_dir, data, user)
            except OSError as keep_error:
                outcome.error += f"; could not keep it either: {keep_error.strerror or keep_error}"
    outcome.pending = len(pending_files(data_dir))
    return outcome


# reading (the teacher's side)


@dataclass(frozen=True)
class QuizResult:
    id: str
    questions: int
    first_try: int | None
    mastered: int
    tries: int
    hints: int
    reveals: int
    seconds: float
    state: str
    last_activity: str | None
    answered: int = 0  # questions closed in the first pass (what "in progress i/n" shows)


@dataclass(frozen=True)
class CodeSubmitted:
    """A code question's final code as the student's app checked it."""

    quiz_id: str
    question: int
    code: str
    sha256: str
    outcome: str  # the verdict the student's app claims
    sandbox: str


@dataclass(frozen=True)
class Submission:
    user: str
    submitted_at: dt.datetime
    app_version: str
    quizzes: tuple[QuizResult, ...]
    lessons_read: frozenset[str]
    lessons_seen: int
    last_activity: str | None
    code: tuple[CodeSubmitted, ...] = ()


def _require(condition: bool, reason: str, impossible: bool = False) -> None:
    if not condition:
        raise (ImpossibleScore if impossible else SubmissionError)(reason)


def _count(row: Mapping[str, Any], key: str, optional: bool = False) -> int | None:
    value = row.get(key)
    if value is None and optional:
        return None
    _require(
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1_000_000,
        f"'{key}' is not a count",
    )
    return value


def _stamp(value: Any, key: str) -> str | None:
    if value is None:
        return None
    _require(isinstance(value, str) and len(value) <= 40, f"'{key}' is not a time")
    try:
        _sort_key(value).astimezone(dt.UTC)  # 0001-01-01T00:00+23:59 has no UTC time
    except (ValueError, OverflowError):
        raise SubmissionError(f"'{key}' is not a time") from None
    return str(value)


def parse_submission(data: bytes) -> Submission:
    """Check every field a report reads; raise SubmissionError saying what is wrong."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except ValueError as error:  # bad UTF-8 or JSON, or an integer past Python's digit limit
        digits = "integer string conversion" in str(error)
        raise SubmissionError("not JSON (a number too long)" if digits else "not JSON") from None
    except RecursionError:
        raise SubmissionError("not JSON") from None
    _require(isinstance(payload, dict), "not a JSON object")
    _require(payload.get("format") == FORMAT, "not an attn-tui submission")
    _require(payload.get("format_version") == FORMAT_VERSION, "unknown format version")
    user = payload.get("user")
    _require(isinstance(user, str) and bool(USER_NAME.match(user)), "'user' is not a login name")
    submitted = _stamp(payload.get("submitted_at"), "submitted_at")
    _require(submitted is not None, "'submitted_at' is missing")
    when = dt.datetime.fromisoformat(str(submitted))
    when = when if when.tzinfo else when.replace(tzinfo=dt.UTC)
    version = payload.get("app_version")
    _require(isinstance(version, str) and len(version) <= 40, "'app_version' is not text")
    quizzes = payload.get("quizzes")
    lessons = payload.get("lessons")
    _require(isinstance(quizzes, list) and len(quizzes) <= MAX_ITEMS, "'quizzes' is not a list")
    _require(isinstance(lessons, list) and len(lessons) <= MAX_ITEMS, "'lessons' is not a list")
    results = []
    latest: list[str] = []
    for row in quizzes:
        _require(isinstance(row, dict), "a quiz entry is not an object")
        quiz_id = row.get("id")
        _require(isinstance(quiz_id, str) and bool(ITEM_ID.match(quiz_id)), "bad quiz id")
        questions = _count(row, "questions") or 0
        first_try = _count(row, "first_try", optional=True)
        mastered = _count(row, "mastered") or 0
        _require(mastered <= questions, f"quiz {quiz_id}: more mastered than questions", True)
        _require(
            first_try is None or first_try <= questions, f"quiz {quiz_id}: score too high", True
        )
        seconds = row.get("seconds", 0.0)
        _require(
            isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and 0 <= seconds < 1e8,
            f"quiz {quiz_id}: 'seconds' is not a duration",
        )
        state = row.get("state", "")
        _require(state in ("not started", "in progress", "finished"), f"quiz {quiz_id}: bad state")
        answered = _count(row, "answered", optional=True) or 0
        _require(answered <= questions, f"quiz {quiz_id}: more answered than questions", True)
        activity = _stamp(row.get("last_activity"), "last_activity")
        if activity:
            latest.append(activity)
        results.append(
            QuizResult(
                id=quiz_id,
                questions=questions,
                first_try=first_try,
                mastered=mastered,
                tries=_count(row, "tries") or 0,
                hints=_count(row, "hints") or 0,
                reveals=_count(row, "reveals") or 0,
                seconds=float(seconds),
                state=state,
                last_activity=activity,
                answered=answered,
            )
        )
    read = set()
    for row in lessons:
        _require(isinstance(row, dict), "a lesson entry is not an object")
        lesson_id = row.get("id")
        _require(isinstance(lesson_id, str) and bool(ITEM_ID.match(lesson_id)), "bad lesson id")
        _require(isinstance(row.get("read"), bool), f"lesson {lesson_id}: 'read' is not true/false")
        if row["read"]:
            read.add(lesson_id)
        activity = _stamp(row.get("last_activity"), "last_activity")
        if activity:
            latest.append(activity)
    return Submission(
        user=user,
        submitted_at=when,
        app_version=version,
        quizzes=tuple(results),
        lessons_read=frozenset(read),
        lessons_seen=len(lessons),
        last_activity=max(latest, key=_sort_key) if latest else None,
        code=_parse_code(payload.get("code", [])),
    )


def _parse_code(entries: Any) -> tuple[CodeSubmitted, ...]:
    """The optional code list (older apps send none); every field checked, code capped."""
    _require(isinstance(entries, list) and len(entries) <= MAX_ITEMS, "'code' is not a list")
    found = []
    for entry in entries:
        _require(isinstance(entry, dict), "a code entry is not an object")
        quiz_id = entry.get("quiz_id")
        _require(isinstance(quiz_id, str) and bool(ITEM_ID.match(quiz_id)), "bad code quiz id")
        question = _count(entry, "question") or 0
        code, digest = entry.get("code"), entry.get("sha256")
        _require(isinstance(code, str) and len(code) <= MAX_CODE_CHARS, "'code' is not text")
        _require(
            isinstance(digest, str) and bool(re.fullmatch(r"[0-9a-f]{64}", digest)),
            "'sha256' is not a hash",
        )
        outcome = entry.get("outcome")
        _require(outcome in CODE_OUTCOMES, "'outcome' is not a code verdict")
        sandbox = entry.get("sandbox", "")
        _require(isinstance(sandbox, str) and len(sandbox) <= 20, "'sandbox' is not text")
        found.append(
            CodeSubmitted(quiz_id, question, str(code), str(digest), str(outcome), sandbox)
        )
    return tuple(found)


def _sort_key(stamp: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(stamp)
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)
