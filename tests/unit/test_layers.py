"""The import rules of the layers, checked in fresh interpreters: content, maths, render,
progress, training, sandbox and classroom never import Textual or the UI, and the TUI
never imports TensorFlow or Keras."""

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
    "tui_course.validation.course",
    "tui_course.answers",
    "tui_course.text.safe",
    "tui_course.runtime.crash",
    "tui_course.specs",
    "tui_course.study",
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
    # code exercises and runnable listings (the widgets are in ui/)
    "tui_course.views.code_exercise",
    "tui_course.views.listing",
    "tui_course.render.listing",
    "tui_course.listings.run",
    "tui_course.progress.drafts",
    "tui_course.runtime.shell_access",
    "tui_course.classroom.recheck",
    "tui_course.sandbox",
    "tui_course.codecheck.service",
    "tui_course.validation.code_questions",
    "tui_course.render.code",
    "tui_course.plain.run",
    "tui_course.plain.course",
    "tui_course.plain.quiz",
    "tui_course.plain.labs",
    "tui_course.plain.figures",
    "tui_course.plain.start",
    "tui_course.render.spoken",
    "tui_course.progress.outline",
    "tui_course.runtime.hangup",
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
        "tui_course.sandbox.frames",
        "tui_course.sandbox.level",
        "tui_course.sandbox.limits",
        "tui_course.sandbox.npy",
        "tui_course.sandbox.runner",
    }


def test_the_check_service_starts_its_sandbox_before_numpy_is_loaded() -> None:
    """`attn-tui check` makes its CodeChecker (whose child starts at once) before this
    process imports NumPy, so the two imports run side by side."""
    modules = loaded_after("import tui_course.codecheck.service, tui_course.commands.check")
    assert "numpy" not in modules


def test_the_judge_and_the_verdicts_text_load_numpy_only_when_they_need_it() -> None:
    """A passing check is judged and printed without NumPy in the checking process
    (content.code_check.plain_pass on the arrays' bytes): none of what it imports loads it."""
    modules = loaded_after(
        "import tui_course.content.code_check, tui_course.render.code, "
        "tui_course.codecheck.reference_cache, tui_course.sandbox.npy"
    )
    assert "numpy" not in modules
    assert "numpy" in loaded_after("import tui_course.content.code_inputs")


def test_the_check_command_starts_its_sandbox_before_the_course_is_loaded() -> None:
    """Everything a CodeChecker needs to start its child, the folders it hides and the
    level the site asks for included, loads no content model, no classroom module (without
    a site config) and no NumPy: what the command loads after runs beside the child."""
    from tui_course.paths import SITE_CONFIG_PATH

    modules = loaded_after(
        "import os\n"
        "os.environ.pop('ATTN_TUI_CONFIG', None)\n"
        "import tui_course.codecheck.service as service, tui_course.commands.check\n"
        "service.private_dirs(), service.required_level()"
    )
    assert "numpy" not in modules
    assert not {m for m in modules if m.startswith("tui_course.content")}
    if not SITE_CONFIG_PATH.exists():  # a lab server's config is read, as it must be
        assert not {m for m in modules if m.startswith("tui_course.classroom")}


def test_where_a_check_records_is_known_without_opening_the_store() -> None:
    """`attn-tui check` asks progress.practice and progress.drafts where things go before
    its verdict; SQLite and the store load beside the wait for the child, not before."""
    modules = loaded_after("import tui_course.progress.practice, tui_course.progress.drafts")
    assert "sqlite3" not in modules and "tui_course.progress.store" not in modules
    names = loaded_after("from tui_course.progress import ProgressStore, StoreError")
    assert "tui_course.progress.store" in names  # the package's names still resolve


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


def test_plain_mode_never_imports_textual(tmp_path: object) -> None:
    """A whole plain session (a lesson with figures, a quiz, the labs' command loops) runs
    without Textual, so `attn-tui --plain` works where the full-screen app cannot."""
    statement = (
        "import io\n"
        "from pathlib import Path\n"
        "from tests.conftest import FIXTURES\n"
        "from tui_course.content.course import load_course\n"
        "from tui_course.plain.console import Console\n"
        "from tui_course.plain.course import PlainCourse\n"
        "from tui_course.progress.store import ProgressStore\n"
        "typed = io.StringIO('\\n' * 40 + 'go 4\\nthe cat sat --query cat\\n\\n\\nq\\n')\n"
        f"data = Path({str(tmp_path)!r})\n"
        "store = ProgressStore(data)\n"
        "course = load_course(FIXTURES / 'plain_course')\n"
        "PlainCourse(course, store, Console(typed, io.StringIO()), data).run('attend')\n"
    )
    modules = loaded_after(statement)
    assert "tui_course.plain.labs" in modules and "numpy" in modules
    assert not {m for m in modules if m == "textual" or m.startswith(("textual.", "tui_course.ui"))}
