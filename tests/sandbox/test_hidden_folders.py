"""A course named with --content holds the references (the keys), and a recheck reads the
class folder: each check is told to show them empty to student code, like the data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tui_course.codecheck.service as service
from tui_course.cli import main
from tui_course.ui.widgets.code_exercises import CodeExercises

FIXTURE = Path(__file__).parent.parent / "fixtures" / "code_course"


class _Recorded(Exception):
    pass


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments of every CodeChecker made; making one ends the command (as an
    unexpected error, which the command reports and survives)."""
    seen: list[dict[str, Any]] = []

    def record(*args: object, **kwargs: Any) -> None:
        seen.append(kwargs)
        raise _Recorded

    monkeypatch.setattr(service, "CodeChecker", record)
    return seen


def test_check_hides_the_course_it_was_given(
    tmp_path: Path, made: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTN_TUI_CONFIG", "/dev/null")
    solution = tmp_path / "mine.py"
    solution.write_text("x = 1\n")
    data = tmp_path / "d"
    main(["--content", str(FIXTURE), "--data-dir", str(data), "check", "x/1", str(solution)])
    assert [Path(p).resolve() for p in made[0]["hide"]] == [FIXTURE.resolve()]


def test_the_apps_checker_hides_the_course_it_shows(tmp_path: Path) -> None:
    exercises = CodeExercises(tmp_path / "data", tmp_path / "course")
    try:
        assert tmp_path / "course" in exercises.checker.hidden
        assert tmp_path / "data" in exercises.checker.hidden
    finally:
        exercises.close()
