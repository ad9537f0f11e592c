"""A non-editable install finds the shipped lessons and quizzes inside the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO


def test_wheel_ships_content_and_runs_from_elsewhere(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("attn_tui-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert "tui_course/_content/lessons/03-self-attention.md" in names
    assert "tui_course/_content/quizzes/understanding.toml" in names
    # a code quiz's trusted references, and the harness the sandbox runs
    assert "tui_course/_content/quizzes/code_exercises.py" in names
    assert "tui_course/sandbox/harness.py" in names
    assert "tui_course/ui/app.tcss" in names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ATTN_TUI_CONTENT_DIR"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import tui_course, sys; from tui_course.cli import main; "
            "print(tui_course.__file__); sys.exit(main(['validate']))",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    module_path, summary = result.stdout.splitlines()
    assert module_path.startswith(str(tmp_path / "site"))
    assert summary == "11 lessons, 5 quizzes, 31 questions, 16 computed figures: all valid"
