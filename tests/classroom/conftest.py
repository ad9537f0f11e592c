from __future__ import annotations

import datetime as dt
import grp
import os
from pathlib import Path
from typing import Any

import pytest

from tui_course.classroom.folder import init_class
from tui_course.classroom.submission import FORMAT, encode_submission


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
