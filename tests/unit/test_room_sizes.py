"""The rooms that were too big stay a size a newcomer can read: the app class (layout lives
in CourseScreen), the progress store's facade, and the GIFT export and reader apart."""

from __future__ import annotations

from pathlib import Path

import pytest

import tui_course

ROOT = Path(tui_course.__file__).parent
LIMITS = {  # lines, under which each must stay
    "ui/app.py": 450,
    "progress/store.py": 600,
    "classroom/gift/export.py": 600,
    "classroom/gift/parse.py": 600,
}


@pytest.mark.parametrize(("name", "limit"), sorted(LIMITS.items()))
def test_a_room_stays_under_its_size(name: str, limit: int) -> None:
    lines = len((ROOT / name).read_text(encoding="utf-8").splitlines())
    assert lines < limit, f"tui_course/{name} has {lines} lines (under {limit} wanted)"
