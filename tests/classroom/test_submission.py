"""Submissions: the payload from the progress report, the drop-box write, pending and retry."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.classroom.submission import (
    SubmissionError,
    build_submission,
    deliver,
    encode_submission,
    login_name,
    parse_submission,
    pending_files,
    submit,
)
from tui_course.content.course import load_course
from tui_course.progress.report import progress_report
from tui_course.progress.store import ProgressStore

CONTRACT_REPORT = {
    "user": "whoever",
    "lessons": [
        {"id": "why", "title": "Why", "order": 1, "read": True, "last_activity": None},
        {"id": "qkv", "title": "QKV", "order": 2, "read": False, "last_activity": None},
    ],
    "quizzes": [
        {
            "id": "checkpoint",
            "title": "Checkpoint",
            "questions": 3,
            "state": "finished",
            "answered": 3,
            "first_try": 2,
            "mastered": 3,
            "best": 3,
            "tries": 4,
            "hints": 1,
            "reveals": 0,
            "seconds": 42.25,
            "last_activity": "2026-11-30T08:00:00+00:00",
        },
        {"id": "exercises", "title": "Ex", "questions": 5, "state": "not started"},
    ],
}


def test_payload_follows_the_contract() -> None:
    payload = build_submission(CONTRACT_REPORT, ["checkpoint"])
    assert payload["user"] == login_name()  # the kernel's name, which the report checks
    assert payload["format"] == "attn-tui-submission"
    (quiz,) = payload["quizzes"]
    assert quiz == {
        "id": "checkpoint",
        "title": "Checkpoint",
        "questions": 3,
        "state": "finished",
        "answered": 3,
        "first_try": 2,
        "mastered": 3,
        "best": 3,
        "tries": 4,
        "hints": 1,
        "reveals": 0,
        "seconds": 42.2,
        "last_activity": "2026-11-30T08:00:00+00:00",
    }
    assert [(row["id"], row["read"]) for row in payload["lessons"]] == [
        ("why", True),
        ("qkv", False),
    ]
    parsed = parse_submission(encode_submission(payload))
    assert parsed.quizzes[0].first_try == 2
    assert parsed.lessons_read == {"why"}
    assert parsed.last_activity == "2026-11-30T08:00:00+00:00"


def test_payload_from_the_real_report(course_root: Path, data_dir: Path) -> None:
    course = load_course(course_root)
    with ProgressStore(data_dir) as store:
        store.mark_lesson_done(course.lessons[0].id)
        run = store.start_run("checkpoint", 3)
        store.record_attempt(run, "checkpoint", 1, "2", True)
        store.record_attempt(run, "checkpoint", 2, "3", False)
        payload = build_submission(progress_report(course, store))
        store_attempts = store.attempts()
    rows = {quiz["id"]: quiz for quiz in payload["quizzes"]}
    assert set(rows) == {quiz.id for quiz in course.quizzes}
    assert rows["checkpoint"]["tries"] == 2
    assert rows["checkpoint"]["mastered"] == 1
    assert rows["checkpoint"]["state"] == "in progress"
    assert rows["exercises"]["state"] == "not started"
    stamps = [a.timestamp for a in store_attempts]
    assert rows["checkpoint"]["last_activity"] == max(stamps)
    assert rows["exercises"]["last_activity"] is None
    assert parse_submission(encode_submission(payload)).lessons_read == {course.lessons[0].id}


def test_deliver_writes_a_private_file(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    os.umask(0o077)  # a student's strict umask must not hide the file from the teacher
    try:
        path = deliver(dropbox, b'{"x": 1}\n', "ann")
    finally:
        os.umask(0o022)
    info = path.stat()
    assert stat.S_IMODE(info.st_mode) == 0o640
    assert info.st_gid == dropbox.stat().st_gid
    assert path.name.startswith("ann-") and path.suffix == ".json"
    assert path.read_bytes() == b'{"x": 1}\n'
    second = deliver(dropbox, b"{}", "ann")
    assert second != path


def test_failed_write_is_kept_and_sent_later(class_dir: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    dropbox = class_dir / "dropbox"
    dropbox.rename(class_dir / "away")  # the NFS mount is gone
    payload = build_submission(CONTRACT_REPORT, ["checkpoint"])
    outcome = submit(payload, class_dir, data_dir)
    assert outcome.delivered == [] and outcome.pending == 1
    assert outcome.error is not None and "cannot reach the drop-box" in outcome.error
    kept = pending_files(data_dir)
    assert stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(kept[0].parent.stat().st_mode) == 0o700
    outcome = submit(build_submission(CONTRACT_REPORT), class_dir, data_dir)
    assert outcome.pending == 2
    (class_dir / "away").rename(dropbox)
    outcome = submit(None, class_dir, data_dir)  # a restart retries
    assert outcome.error is None and outcome.pending == 0
    assert len(outcome.delivered) == 2
    sent = sorted(len(json.loads(p.read_text())["quizzes"]) for p in outcome.delivered)
    assert sent == [1, 2]
    assert pending_files(data_dir) == []


def test_a_readable_dropbox_is_refused(class_dir: Path, tmp_path: Path) -> None:
    (class_dir / "dropbox").chmod(0o3777)
    outcome = submit(build_submission(CONTRACT_REPORT), class_dir, tmp_path / "data")
    assert outcome.delivered == [] and outcome.pending == 1
    assert outcome.error is not None and "lets students list the submissions" in outcome.error
    assert list((class_dir / "dropbox").iterdir()) == []


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p.update(format="other"), "not an attn-tui submission"),
        (lambda p: p.update(user="\x1b[31mroot"), "'user' is not a login name"),
        (lambda p: p["quizzes"][0].update(first_try=7), "score too high"),
        (lambda p: p["quizzes"][0].update(mastered=-1), "'mastered' is not a count"),
        (lambda p: p["quizzes"][0].update(id="../x"), "bad quiz id"),
        (lambda p: p["quizzes"][0].update(seconds=True), "'seconds' is not a duration"),
        (lambda p: p["quizzes"][0].update(state="done!"), "bad state"),
        (lambda p: p.update(submitted_at="yesterday"), "'submitted_at' is not a time"),
        (lambda p: p.update(quizzes={}), "'quizzes' is not a list"),
        (lambda p: p["lessons"][0].update(read="yes"), "'read' is not true/false"),
    ],
)
def test_tampered_payloads_are_rejected(change: object, reason: str) -> None:
    payload = build_submission(CONTRACT_REPORT)
    change(payload)  # type: ignore[operator]
    with pytest.raises(SubmissionError, match=reason.replace("(", r"\(")):
        parse_submission(json.dumps(payload).encode())


@pytest.mark.parametrize("data", [b"", b"\xff\xfe", b"[1]", b"{" * 100_000, b'"x"'])
def test_garbage_is_rejected(data: bytes) -> None:
    with pytest.raises(SubmissionError):
        parse_submission(data)


def test_submit_command(
    class_dir: Path,
    site_config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui_course.cli import main

    data = str(tmp_path / "data")
    assert main(["submit", "--data-dir", data]) == 0
    count = len(load_course(REPO).quizzes)
    assert capsys.readouterr().out == f"submitted {count} quiz summaries to {class_dir}\n"
    (class_dir / "dropbox").chmod(0o3770)  # the teacher got the mode wrong
    assert main(["submit", "--data-dir", data]) == 1
    err = capsys.readouterr().err
    assert "students cannot put files in it; tell your teacher" in err
    assert err.rstrip().endswith("1 submission(s) kept and sent again next time")
    monkeypatch.setenv("ATTN_TUI_CONFIG", os.devnull)
    assert main(["submit", "--data-dir", data]) == 1
    assert "no class folder is set up" in capsys.readouterr().err
