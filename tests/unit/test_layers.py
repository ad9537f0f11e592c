"""The import rules of DESIGN.md, checked in fresh interpreters."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PURE = [
    "tui_course.content.course",
    "tui_course.content.session",
    "tui_course.maths",
    "tui_course.maths.expression",
    "tui_course.render.blocks",
    "tui_course.render.quiz",
    "tui_course.views",
    "tui_course.views.quiz",
    "tui_course.views.attention",
    "tui_course.views.pe",
    "tui_course.views.real_model",
    "tui_course.render.attention",
    "tui_course.progress.report",
    "tui_course.progress.recorder",
    "tui_course.progress.review",
    "tui_course.progress.scores",
    "tui_course.validate",
    "tui_course.answers",
    "tui_course.safe_text",
    "tui_course.crash",
    "tui_course.specs",
    "tui_course.training.findings",
    "tui_course.training.record",
    "tui_course.render.training",
    "tui_course.views.training",
    "tui_course.classroom.config",
    "tui_course.classroom.folder",
    "tui_course.classroom.submission",
    "tui_course.classroom.report",
    "tui_course.classroom.slots",
    "tui_course.classroom.link",
    "tui_course.classroom.doctor",
    "tui_course.classroom.recheck",
    "tui_course.sandbox",
    "tui_course.code_check_service",
    "tui_course.code_proof",
    "tui_course.render.code",
]


def loaded_after(statement: str) -> set[str]:
    script = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout))


@pytest.mark.parametrize("module", PURE)
def test_pure_layers_do_not_import_textual(module: str) -> None:
    modules = loaded_after(f"import {module}")
    assert not {m for m in modules if m == "textual" or m.startswith(("textual.", "tui_course.ui"))}


def test_sandbox_imports_neither_numpy_nor_the_rest_of_the_app() -> None:
    """The sandbox is the trusted edge: nothing of grading, content or NumPy at import."""
    modules = loaded_after("import tui_course.sandbox")
    assert "numpy" not in modules
    assert {m for m in modules if m.startswith("tui_course.")} <= {
        "tui_course.sandbox",
        "tui_course.sandbox.command",
        "tui_course.sandbox.level",
        "tui_course.sandbox.limits",
        "tui_course.sandbox.runner",
    }


def test_content_layer_does_not_import_numpy() -> None:
    modules = loaded_after("import tui_course.content.course, tui_course.content.session")
    assert "numpy" not in modules


def test_tui_process_never_imports_tensorflow_or_keras(tmp_path: object) -> None:
    statement = (
        "import asyncio\n"
        "from pathlib import Path\n"
        "from tui_course.paths import default_content_dir\n"
        "from tui_course.ui.app import Settings, make_app\n"
        f"app = make_app(Settings(default_content_dir(), Path({str(tmp_path)!r})))\n"
        "async def drive():\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await app.open_item('digit-lab')\n"
        "        await app.open_item('exercises')\n"
        "        await app.open_item('attention-lab')\n"
        "        await app.open_item('training-lab')\n"
        "        await pilot.pause()\n"
        "asyncio.run(drive())"
    )
    modules = loaded_after(statement)
    assert "textual" in modules
    assert not {m for m in modules if m.split(".")[0] in ("tensorflow", "keras", "torch", "jax")}
