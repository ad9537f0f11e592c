"""Lesson 10's code, built exactly as the lesson prints it, has the parameters the lesson's
figure counts. Needs the train extra (Keras); runs Keras in a child process."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.content.lessons import load_lesson
from tui_course.content.segments import BlockSegment, MarkdownSegment
from tui_course.render.blocks import render_block

LESSON = REPO / "lessons" / "10-digit-lab.md"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("keras") is None,
        reason="needs the 'train' extra (Keras): pip install '.[train]'",
    ),
]


def model_code() -> str:
    """The lesson's one ```python block that builds the model, as written."""
    lesson = load_lesson(LESSON)
    prose = "\n".join(s.text for s in lesson.segments if isinstance(s, MarkdownSegment))
    blocks = prose.split("```python\n")[1:]
    code = [block.split("\n```")[0] for block in blocks if "keras.Model(" in block]
    assert len(code) == 1
    return code[0]


def figure_total() -> int:
    lesson = load_lesson(LESSON)
    params = [s for s in lesson.segments if isinstance(s, BlockSegment) and s.name == "params"]
    assert len(params) == 1
    last = render_block(params[0]).splitlines()[-1]
    assert last.startswith("Total trainable parameters")
    return int(last.split()[-1].replace(",", ""))


def test_lesson_10_code_builds_the_counted_parameters(tmp_path: Path) -> None:
    script = tmp_path / "lesson10.py"
    script.write_text(model_code() + "\nprint(model.count_params())\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    built = int(result.stdout.split()[-1])
    assert built == figure_total() == 14_049
