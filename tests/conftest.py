from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tui_course.progress.store import ProgressStore

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The suite runs in four workers (pytest -n 4, CONTRIBUTING.md): tests that act as the
    real Unix test users all go to one worker (--dist loadgroup), since each worker makes those
    users at its start and removes them at its end (tests/classroom/conftest.py)."""
    for item in items:
        if "accounts" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("unix-accounts"))


@pytest.fixture(autouse=True)
def pinned_terminal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Glyph choices (ellipsis, bar blocks) follow the locale: pin it so snapshots and golden
    text do not depend on the machine. Tests of ASCII mode set their own."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    # A terminal's size comes from its pty: pytest-xdist's workers inherit COLUMNS=80 and
    # LINES=24, which Textual would take over the size a test gave its pty.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def sealed_site_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A lab server's /etc/attn-tui/config.toml must not reach the tests, and neither must
    the machine-wide training slots ($TMPDIR/attn-tui-slots): another attn-tui training on
    the machine would put a test's run in line behind it. Each test gets a site config of
    its own naming a slots folder of its own, through the override users have."""
    folder = tmp_path_factory.mktemp("site")
    config = folder / "config.toml"
    config.write_text(f"slots_dir = {str(folder / 'slots')!r}\n", encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(config))
    return config


@pytest.fixture
def course_root() -> Path:
    """The shipped course, as the repo holds it."""
    return REPO


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def run_python(
    script: str, *args: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a short script in a fresh interpreter (kill -9 and two-process tests)."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@contextmanager
def exclusive_lock(database: Path) -> Iterator[None]:
    """Another program holding the whole database (BEGIN EXCLUSIVE) until the block ends."""
    other = sqlite3.connect(database, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        other.rollback()
        other.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs: a full disk for real. Needs root (mount); skipped otherwise."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a real full disk needs root to mount a small tmpfs")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode(errors='replace').strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill_disk(folder: Path) -> None:
    """Write until the file system says it is full."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def cap_database_at_its_size(store: ProgressStore) -> None:
    """A full disk without a tmpfs: SQLite refuses to grow the file (the real SQLITE_FULL)."""
    connection = store._conn  # fault injection: the one place tests reach inside the store
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")
