"""Files written for a user never go through a planted link; CSV cells never run as formulas."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.classroom.submission import keep_pending, pending_files
from tui_course.paths import STALE_TEMPORARY_SECONDS, LinkRefused, write_file_safely
from tui_course.runtime.crash import write_crash_log
from tui_course.text.csvfile import csv_text, safe_cell


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_course", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file someone else cares about, the target of the planted links."""
    path = tmp_path / "victim.txt"
    path.write_text("precious\n", encoding="utf-8")
    return path


def test_the_helper_replaces_a_link_at_the_target_and_leaves_no_temporary(
    tmp_path: Path, victim: Path
) -> None:
    target = tmp_path / "out.toml"
    target.symlink_to(victim)
    write_file_safely(target, b"new\n")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not target.is_symlink() and target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.toml", "victim.txt"]


def test_a_write_removes_the_temporaries_a_killed_writer_left(tmp_path: Path) -> None:
    """A writer killed before its rename leaves .NAME.<hex>.tmp: the next write of that
    file removes those older than STALE_TEMPORARY_SECONDS, not a live writer's, nor
    another file's."""
    target = tmp_path / "cache.pickle"
    left = tmp_path / ".cache.pickle.0123456789ab.tmp"
    live = tmp_path / ".cache.pickle.ba9876543210.tmp"  # another write, now
    other = tmp_path / ".other.pickle.0123456789ab.tmp"
    old = time.time() - STALE_TEMPORARY_SECONDS - 60
    for each in (left, live, other):
        each.write_bytes(b"partial")
    for each in (left, other):
        os.utime(each, (old, old))
    write_file_safely(target, b"whole", mode=0o600)
    assert target.read_bytes() == b"whole"
    assert not left.exists() and live.exists() and other.exists()


def test_a_private_file_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = write_file_safely(tmp_path / "p", b"x", 0o600)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("command", ["import", "export"])
def test_import_and_export_output_never_follow_a_planted_link(
    command: str, tmp_path: Path, victim: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    # the old partial name, and every name a guesser could plant, point at the victim
    (shared / ".quiz.toml.partial").symlink_to(victim)
    (shared / "quiz.toml").symlink_to(victim)
    if command == "import":
        gift = tmp_path / "x.gift"
        gift.write_text("::q1:: Two plus two? {=4 ~5}\n", encoding="utf-8")
        result = run_cli("import", str(gift), "-o", str(shared / "quiz.toml"))
    else:
        result = run_cli(
            "export", "--format", "gift", "checkpoint", "-o", str(shared / "quiz.toml")
        )
    assert result.returncode == 0, result.stderr
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not (shared / "quiz.toml").is_symlink()
    assert (shared / "quiz.toml").read_text(encoding="utf-8").strip()


def test_a_pending_submission_never_follows_a_link(tmp_path: Path, victim: Path) -> None:
    data = tmp_path / "data"
    keep_pending(data, b"{}", "ann")  # makes pending/
    pending = data / "pending"
    for name in os.listdir(pending):
        os.unlink(pending / name)
    # any predictable name a student could plant in their own folder run as root
    (pending / ".link.tmp").symlink_to(victim)
    path = keep_pending(data, b'{"a": 1}', "ann")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert path.read_bytes() == b'{"a": 1}' and path.stat().st_mode & 0o777 == 0o600
    assert pending_files(data) == [path]


def test_a_crash_log_refuses_a_linked_data_folder(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "data").symlink_to(real)
    with pytest.raises(LinkRefused):
        write_crash_log(tmp_path / "data", RuntimeError("boom"))
    assert list(real.iterdir()) == []


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'),
        ("+1", '"\'+1"'),
        ("-2+3", '"\'-2+3"'),
        ("@SUM(A1)", '"\'@SUM(A1)"'),
        ("\tcmd", '"\'\tcmd"'),
        ("plain", "plain"),
        ("a,b", '"a,b"'),
        (None, ""),
        (3, "3"),
    ],
)
def test_formula_cells_are_quoted_and_prefixed(cell: object, written: str) -> None:
    assert safe_cell(cell) == written
    read_back = next(csv.reader(io.StringIO(csv_text([[cell, "end"]]))))
    shown = "" if cell is None else str(cell)
    assert read_back == ["'" + shown if written.startswith("\"'") else shown, "end"]


def test_progress_csv_neutralises_a_formula_title(tmp_path: Path) -> None:
    content = tmp_path / "course"
    shutil.copytree(REPO / "lessons", content / "lessons")
    (content / "quizzes").mkdir()
    quiz = (REPO / "quizzes" / "checkpoint.toml").read_text(encoding="utf-8")
    quiz = quiz.replace(
        'title = "Mini-checkpoint: why positions?"',
        'title = "=HYPERLINK(\\"http://evil.example\\",\\"grades\\")"',
    )
    (content / "quizzes" / "checkpoint.toml").write_text(quiz, encoding="utf-8")
    result = run_cli(
        "progress", "--format", "csv", "--content", str(content), "--data-dir", str(tmp_path / "d")
    )
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if ",checkpoint," in line)
    assert ',"\'=HYPERLINK(""http://evil.example"",""grades"")",' in line
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert next(r for r in rows if r["id"] == "checkpoint")["title"].startswith("'=")
