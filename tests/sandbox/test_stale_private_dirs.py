"""A checker killed with -9 leaves its limits-only private folder behind; the next one removes
it, and never a folder that is not this account's or whose maker still runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui_course.sandbox.runner import PRIVATE_PREFIX, remove_stale_private_dirs


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_this_accounts_folders_of_gone_makers_are_removed(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = tmp_path / f"{PRIVATE_PREFIX}{dead}-abc123"
    (stale / "work").mkdir(parents=True)
    (stale / "work" / "solution.py").write_text("x = 1\n")
    living = tmp_path / f"{PRIVATE_PREFIX}{os.getpid()}-def456"
    living.mkdir()
    unrelated = tmp_path / f"attn-tui-listing-{dead}-abc"
    unrelated.mkdir()
    target = tmp_path / "keep-me"
    target.mkdir()
    (target / "precious").write_text("data")
    link = tmp_path / f"{PRIVATE_PREFIX}{dead}-link"
    link.symlink_to(target)

    removed = remove_stale_private_dirs(tmp_path)

    assert removed == [stale]
    assert not stale.exists()
    assert living.is_dir() and unrelated.is_dir() and link.is_symlink()
    assert (target / "precious").read_text() == "data"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder another account owns")
def test_another_accounts_folder_is_left_alone(tmp_path: Path) -> None:
    theirs = tmp_path / f"{PRIVATE_PREFIX}{_dead_pid()}-xyz"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    assert remove_stale_private_dirs(tmp_path) == []
    assert theirs.is_dir()


def test_a_missing_temp_folder_is_no_error(tmp_path: Path) -> None:
    assert remove_stale_private_dirs(tmp_path / "gone") == []
