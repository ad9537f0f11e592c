"""`attn-tui class recheck`: submitted code runs again in the sandbox on fresh seeds; claims
that do not hold come first; below bwrap it refuses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tui_course.classroom.folder import DROPBOX
from tui_course.classroom.submission import FORMAT, FORMAT_VERSION, login_name
from tui_course.cli import main
from tui_course.sandbox.level import BWRAP_ENV, Level, forget_probe, sandbox_level

RIGHT = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def entry(code: str, outcome: str = "passed", digest: str | None = None) -> dict[str, object]:
    return {
        "quiz_id": "code",
        "question": 1,
        "code": code,
        "sha256": digest or hashlib.sha256(code.encode()).hexdigest(),
        "outcome": outcome,
        "sandbox": "bwrap",
        "checked_at": "2026-12-01T10:00:00+00:00",
    }


def drop(class_dir: Path, name: str, code: list[dict[str, object]]) -> None:
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "user": login_name(),
        "app_version": "0.1.0",
        "submitted_at": f"2026-12-01T10:00:0{name[-1]}+00:00",
        "quizzes": [],
        "lessons": [],
        "code": code,
    }
    (class_dir / DROPBOX / f"{name}.json").write_text(json.dumps(payload))


@pytest.fixture
def class_dir(tmp_path: Path) -> Path:
    (tmp_path / DROPBOX).mkdir(parents=True)
    return tmp_path


def test_recheck_lists_mismatches_first(class_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    forget_probe()
    if sandbox_level().level is not Level.BWRAP:
        pytest.skip("no bwrap")
    drop(class_dir, "old1", [entry(RIGHT, "failed")])  # an older file: not rechecked
    wrong = RIGHT.replace(" / np.sqrt(Q.shape[-1])", "")
    drop(class_dir, "new2", [entry(wrong, "passed")])
    assert main(["class", "recheck", "--dir", str(class_dir), "--seed", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "held-out seed 7 (again: --seed 7)"
    assert out[2].split()[:5] == [login_name(), "code/1", "passed", "failed", "NO"]
    assert out[-1] == "1 solution(s) rechecked, 1 disagree with their claim"


def test_recheck_catches_a_changed_file_and_writes_csv(class_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    forget_probe()
    if sandbox_level().level is not Level.BWRAP:
        pytest.skip("no bwrap")
    drop(
        class_dir, "sub1", [entry(RIGHT + "# edited\n", "passed", hashlib.sha256(b"x").hexdigest())]
    )
    assert main(["class", "recheck", "code", "--dir", str(class_dir), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "user,question,claimed,rechecked,agrees,sha256,message"
    assert ",code/1,passed,hash mismatch,NO," in lines[1]


def test_recheck_refuses_without_bwrap(class_dir: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    drop(class_dir, "sub1", [entry(RIGHT)])
    monkeypatch.setenv(BWRAP_ENV, "")
    forget_probe()
    try:
        assert main(["class", "recheck", "--dir", str(class_dir)]) == 1
    finally:
        forget_probe()
    assert "refuses to run students' code without bwrap" in capsys.readouterr().err


def needs_bwrap() -> None:
    forget_probe()
    if sandbox_level().level is not Level.BWRAP:
        pytest.skip("no bwrap")


def test_recheck_runs_only_the_latest_entry_per_question(class_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """1,000 entries for one question (the most a file may hold): one check, of the last."""
    needs_bwrap()
    earlier = [entry(f"x = {i}\n", "passed") for i in range(999)]
    drop(class_dir, "sub1", [*earlier, entry(RIGHT, "passed")])
    assert main(["class", "recheck", "--dir", str(class_dir), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # the header and one row
    assert ",code/1,passed,passed,yes," in lines[1]
    assert hashlib.sha256(RIGHT.encode()).hexdigest() in lines[1]


def test_latest_code_keeps_the_last_entry_of_each_question() -> None:
    from tui_course.classroom.recheck import latest_code
    from tui_course.classroom.submission import CodeSubmitted

    def made(question: int, code: str) -> CodeSubmitted:
        return CodeSubmitted("code", question, code, "0" * 64, "passed", "bwrap")

    entries = [made(1, "a"), made(2, "b"), made(1, "c"), made(1, "d"), made(2, "e")]
    assert [(e.question, e.code) for e in latest_code(entries)] == [(1, "d"), (2, "e")]


HOSTILE = (
    "import os, struct, sys\n\ndef attention_weights(Q, K):\n"
    "    for fd in range(3, 64):\n"
    "        try:\n"
    "            if os.readlink(f'/proc/self/fd/{fd}').startswith('pipe:'):\n"
    "                os.write(fd, b'')\n"
    "                break\n"
    "        except OSError:\n"
    "            continue\n"
    '    frame = b\'{"status": "ok", "entry": Infinity, "case": 0, "outputs": 0}\'\n'
    "    os.write(fd, struct.pack('>I', len(frame)) + frame)\n"
    "    os._exit(0)\n"
)


def test_a_hostile_submission_gets_its_row_and_the_class_its_csv(
    class_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Crafted result frames from one student's code: that row says crashed, the others
    are checked as usual, and the command ends with its table (exit 0)."""
    import os
    import pwd

    needs_bwrap()
    drop(class_dir, "sub1", [entry(HOSTILE, "passed")])
    others = []
    if os.geteuid() == 0:  # as root, a second student's file owned by another account
        other = pwd.getpwnam("nobody")
        payload = json.loads((class_dir / DROPBOX / "sub1.json").read_text())
        payload["user"] = other.pw_name
        payload["code"] = [entry(RIGHT, "passed")]
        path = class_dir / DROPBOX / "sub2.json"
        path.write_text(json.dumps(payload))
        os.chown(path, other.pw_uid, other.pw_gid)
        others.append(other.pw_name)
    assert main(["class", "recheck", "--dir", str(class_dir), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 + len(others)
    hostile = next(line for line in lines if line.startswith(login_name() + ","))
    assert ",code/1,passed,crashed,NO," in hostile
    assert "Infinity in a result header" in hostile
    for name in others:
        assert any(line.startswith(f"{name},code/1,passed,passed,yes,") for line in lines)


def test_each_refused_file_is_said_once_and_junk_once_per_owner(
    class_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: recheck printed each "skipped" warning twice. Counted here: a forgery is
    one line, one junk file one line, and 50 more junk files still one line."""
    needs_bwrap()
    me = login_name()
    drop(class_dir, "sub1", [entry(RIGHT, "passed")])
    forged = json.loads((class_dir / DROPBOX / "sub1.json").read_text())
    forged["user"] = "someone-else"
    (class_dir / DROPBOX / "forged.json").write_text(json.dumps(forged))
    (class_dir / DROPBOX / "junk.txt").write_text("not json")

    def skipped() -> list[str]:
        assert main(["class", "recheck", "--dir", str(class_dir), "--seed", "3"]) == 0
        captured = capsys.readouterr()
        assert (
            captured.out.splitlines()[-1] == "1 solution(s) rechecked, 0 disagree with their claim"
        )
        return captured.err.splitlines()

    assert skipped() == [
        f"attn-tui: skipped forged.json: names 'someone-else' but belongs to {me}",
        f"attn-tui: skipped junk.txt: not JSON ({me})",
    ]
    for number in range(50):
        (class_dir / DROPBOX / f"junk-{number}").write_bytes(b"\x00")
    assert skipped() == [
        f"attn-tui: skipped forged.json: names 'someone-else' but belongs to {me}",
        f"attn-tui: skipped {me}: 51 files that are not submissions",
    ]


def test_the_entry_point_says_each_skipped_file_once_in_the_reports_order(
    class_dir: Path, tmp_path: Path
) -> None:
    """Issue 29, tried again through `python -m tui_course` (a process of its own, as a
    teacher runs it): owners whose files are of several kinds (a valid code submission, a
    quiz-only one, a forgery, junk, a FIFO, a link, one the teacher cannot read), each
    problem once, owners in natural order (uid 9001 before uid 10001), stdout untouched.
    The newer quiz-only file (what the app sends after another quiz) keeps the code of
    the older one in the recheck."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    needs_bwrap()
    if os.geteuid() != 0:
        pytest.skip("gives files to other owners: needs root")
    dropbox = class_dir / DROPBOX
    drop(class_dir, "sub1", [entry(RIGHT, "passed")])
    quiz_only = json.loads((dropbox / "sub1.json").read_text())
    quiz_only["code"] = []
    (dropbox / "quiz-only2.json").write_text(json.dumps(quiz_only))
    forged = dict(quiz_only, user="someone-else")
    for owner, name in ((10001, "b-forged.json"), (9001, "a-forged.json")):
        (dropbox / name).write_text(json.dumps(forged))
        os.chown(dropbox / name, owner, -1)
    for owner in (10001, 9001):
        for number in range(3):
            junk = dropbox / f"junk-{owner}-{number}"
            junk.write_bytes(b"\x00")
            os.chown(junk, owner, -1)
    os.mkfifo(dropbox / "fifo")
    os.symlink("/etc/passwd", dropbox / "link")
    unreadable = dropbox / "secret.json"
    unreadable.write_text("{}")
    unreadable.chmod(0)
    os.chown(unreadable, 9001, -1)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "ATTN_TUI_CONFIG": "/dev/null",
        "ATTN_TUI_DATA_DIR": str(tmp_path / "data"),
    }
    command = [sys.executable, "-m", "tui_course", "class", "recheck"]
    ran = subprocess.run(
        [*command, "--dir", str(class_dir), "--seed", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    me = login_name()
    assert ran.stderr.splitlines() == [
        "attn-tui: skipped a-forged.json: names 'someone-else' but belongs to uid 9001",
        "attn-tui: skipped b-forged.json: names 'someone-else' but belongs to uid 10001",
        f"attn-tui: skipped {me}: 2 files that are not submissions",
        "attn-tui: skipped uid 9001: 4 files that are not submissions",
        "attn-tui: skipped uid 10001: 3 files that are not submissions",
    ]
    assert "skipped" not in ran.stdout
    assert ran.stdout.splitlines()[-1] == "1 solution(s) rechecked, 0 disagree with their claim"
