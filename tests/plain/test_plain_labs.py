"""Plain mode runs each lab the registry lists (content/labs.py) with the loop its entry
names; a lab it lacks is said, not raised; and the loops do not import the plain course
back (they take a LabHost), so plain/course -> plain/labs is one way."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tui_course.content.course import load_course
from tui_course.content.labs import LABS, lab_kind
from tui_course.content.models import Lab
from tui_course.plain import labs as plain_labs
from tui_course.plain.console import Console
from tui_course.plain.course import PlainCourse
from tui_course.progress.store import ProgressStore

# What each loop says first, after the lab's summary (the loop's own words, not the summary).
OPENING = {
    "attention-lab": "Type a sentence to see how each word attends to the others.",
    "pe-lab": "Rows are positions, columns dimensions.",
    "real-model-lab": ("Type a sentence; all-MiniLM-L6-v2 reads it.", "not installed"),
    "training-lab": "Train lesson 10's digit task in a child process",
}


def plain_course(tmp_path: Path, typed: str) -> tuple[PlainCourse, io.StringIO]:
    out = io.StringIO()
    store = ProgressStore(tmp_path / "data")
    course = load_course(FIXTURES / "plain_course")
    plain = PlainCourse(course, store, Console(io.StringIO(typed), out), tmp_path / "data")
    plain.training_extra_installed = lambda: True  # the loop's prompt, without training
    return plain, out


def test_the_openings_cover_every_registered_lab() -> None:
    assert set(OPENING) == {kind.lab.id for kind in LABS}


@pytest.mark.parametrize("lab_id", sorted(OPENING))
def test_each_registered_lab_runs_its_own_loop_and_enter_leaves_it(
    tmp_path: Path, lab_id: str
) -> None:
    plain, out = plain_course(tmp_path, "\n")
    lab = lab_kind(lab_id).lab
    plain_labs.run_lab(plain, lab)
    said = out.getvalue()
    assert said.startswith(lab.summary)
    opening = OPENING[lab_id]
    assert any(words in said for words in ((opening,) if isinstance(opening, str) else opening))
    assert "has no plain version" not in said


def test_a_lab_the_registry_lacks_is_said_in_one_line(tmp_path: Path) -> None:
    plain, out = plain_course(tmp_path, "")
    plain_labs.run_lab(plain, Lab("guess-lab", "Guess", after="intro", summary="s"))
    assert out.getvalue().strip() == "The lab guess-lab has no plain version."


def imported_by(module: object) -> set[str]:
    """Every module a source file imports, under `if TYPE_CHECKING:` and in functions too."""
    tree = ast.parse(Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_course_runs_the_labs_and_the_labs_import_no_course_back() -> None:
    from tui_course.plain import course

    assert "tui_course.plain.labs" in imported_by(course)
    assert not {
        name for name in imported_by(plain_labs) if name.startswith("tui_course.plain.course")
    }
