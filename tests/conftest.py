from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def utf8_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Glyph choices (ellipsis, bar blocks) follow the locale: pin it so snapshots and golden
    text do not depend on the machine. Tests of ASCII mode set their own."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)


@pytest.fixture(autouse=True)
def no_site_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lab server's /etc/attn-tui/config.toml must not reach the tests: an empty one does."""
    monkeypatch.setenv("ATTN_TUI_CONFIG", os.devnull)


@pytest.fixture
def course_root() -> Path:
    """The shipped course, as the repo holds it."""
    return REPO


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"
