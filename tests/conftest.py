from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def course_root() -> Path:
    """The shipped course, as the repo holds it."""
    return REPO


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"
