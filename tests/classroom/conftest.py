from __future__ import annotations

import grp
import os
from pathlib import Path

import pytest

from tui_course.classroom.folder import init_class


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
