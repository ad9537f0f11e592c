from __future__ import annotations

import datetime as dt
import grp
import json
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tui_course.classroom.folder import init_class
from tui_course.classroom.submission import FORMAT, encode_submission

FAKE_TRAINING = Path(__file__).resolve().parent.parent / "fixtures" / "fake_training"


def fake_training_command(
    scenario: str, log: Path, *extra: str, python: str | None = None
) -> list[str]:
    """The fake child (tests/fixtures/fake_child.py) with the training child's command
    line, `<python> -m tui_course.training ...`, which is what makes a training slot count
    a run: `env -C` starts it in the stand-in package's folder (found first on sys.path)."""
    import sys

    interpreter = python or sys.executable
    return [
        "env",
        "-C",
        str(FAKE_TRAINING),
        interpreter,
        "-m",
        "tui_course.training",
        scenario,
        *extra,
        "--log",
        str(log),
    ]


def own_group() -> str:
    return grp.getgrgid(os.getgid()).gr_name


@pytest.fixture
def class_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "class"
    init_class(directory, own_group(), 2, "Attention 101")
    return directory


@pytest.fixture
def site_config(tmp_path: Path, class_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "site.toml"
    path.write_text(f'class_dir = "{class_dir}"\ntraining_slots = 1\n', encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(path))
    return path


def submission(user: str, when: str, **quizzes: tuple[int | None, int]) -> dict[str, Any]:
    """A valid submission payload: quiz id = (first_try, mastered), five questions each."""
    return {
        "format": FORMAT,
        "format_version": 1,
        "user": user,
        "app_version": "0.1.0",
        "submitted_at": when,
        "quizzes": [
            {
                "id": quiz_id,
                "questions": 5,
                "state": "finished",
                "first_try": first,
                "mastered": mastered,
                "tries": 7,
                "hints": 0,
                "reveals": 0,
                "seconds": 12.5,
                "last_activity": when,
            }
            for quiz_id, (first, mastered) in quizzes.items()
        ],
        "lessons": [{"id": "why", "read": True, "last_activity": when}],
    }


_last_ctime = [0]


def drop(dropbox: Path, name: str, data: bytes | dict[str, Any]) -> Path:
    """Write a drop-box file that arrives strictly after the one dropped before it: the
    report orders by ctime, whose clock ticks coarser than a test writes (a chmod, which
    sets ctime to now, is repeated until the clock has moved on; no sleep)."""
    path = dropbox / name
    path.write_bytes(data if isinstance(data, bytes) else encode_submission(data))
    while os.lstat(path).st_ctime_ns <= _last_ctime[0]:
        os.chmod(path, os.lstat(path).st_mode & 0o7777, follow_symlinks=False)
    _last_ctime[0] = os.lstat(path).st_ctime_ns
    return path


def arrived(path: Path) -> dt.datetime:
    return dt.datetime.fromtimestamp(os.lstat(path).st_ctime_ns / 1e9, dt.UTC)


# real Unix users (root only): the permission tests make them once per session, with
# names of this run's own, so two test runs on one machine (two checkouts, a second run
# beside CI) never make and remove each other's users. pytest-xdist gives all the workers
# of one run the same id.

_RUN = (os.environ.get("PYTEST_XDIST_TESTRUNUID") or secrets.token_hex(3))[:6]
STUDENTS = (f"attnt-ann-{_RUN}", f"attnt-bob-{_RUN}")
TEACHER = f"attnt-tina-{_RUN}"
TEACHERS = f"attnt-teach-{_RUN}"
PUPILS = f"attnt-pupils-{_RUN}"  # the students' group


def ensure_account(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True
        )


@pytest.fixture(scope="session")
def accounts() -> Iterator[None]:
    """Two students (in PUPILS) and a teacher (in TEACHERS), removed at the end."""
    if os.geteuid() != 0:
        pytest.skip("needs root: makes Unix users and acts as each")
    if shutil.which("useradd") is None or shutil.which("groupadd") is None:
        pytest.skip("needs useradd and groupadd to make the test users")
    for group in (TEACHERS, PUPILS):
        try:
            grp.getgrnam(group)
        except KeyError:
            subprocess.run(["groupadd", group], check=True)
    for name in (*STUDENTS, TEACHER):
        ensure_account(name)
    for name in STUDENTS:
        subprocess.run(["usermod", "-aG", PUPILS, name], check=True)
    yield
    for name in (*STUDENTS, TEACHER):
        subprocess.run(["userdel", name], check=False, capture_output=True)
    for group in (TEACHERS, PUPILS):
        subprocess.run(["groupdel", group], check=False, capture_output=True)


@pytest.fixture
def shared(accounts: None) -> Iterator[Path]:
    """A folder every test user can reach (pytest's tmp_path is root's only)."""
    base = Path(tempfile.mkdtemp(prefix="attn-class-test-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def as_user(name: str, action: Callable[[], Any], groups: tuple[str, ...] = ()) -> Any:
    """Run `action` in a child process that has become `name` (member of `groups` too);
    return its JSON result."""
    account = pwd.getpwnam(name)
    extra = [grp.getgrnam(group).gr_gid for group in groups]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the student
        os.close(read_end)
        code = 1
        try:
            os.setgroups(extra)
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            os.environ["HOME"] = "/nonexistent"
            os.write(write_end, json.dumps(action()).encode())
            code = 0
        except BaseException as error:  # the parent reads why
            os.write(write_end, json.dumps({"child error": repr(error)}).encode())
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        result = json.loads(pipe.read() or b"null")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, result
    return result
