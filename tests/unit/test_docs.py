"""The docs hold together: README.md stays short, every relative link and anchor between
README.md, CONTRIBUTING.md and docs/ leads somewhere, CI finds its test commands where the
contributors' guide shows them, and CONTRIBUTING.md's picture of the layers is the real tree."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.unit.test_import_graph import MODULES, imports_of

README_MAX_LINES = 250
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The Markdown without code: links and headings inside code are not links and headings."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_anchors_follow_githubs_rule() -> None:
    assert anchor("The teacher's side") == "the-teachers-side"
    moodle = "Quizzes in Moodle (GIFT and Moodle XML)"
    assert anchor(moodle) == "quizzes-in-moodle-gift-and-moodle-xml"
    assert anchor("Checking a course: `attn-tui validate`") == "checking-a-course-attn-tui-validate"


def test_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_relative_links_lead_to_a_file_and_a_heading(doc: Path) -> None:
    broken = []
    for target in LINK.findall(prose(doc.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        name, _, fragment = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        if not path.is_file():
            broken.append(f"{target}: no file {path}")
        elif fragment and path.suffix == ".md" and fragment not in anchors(path):
            broken.append(f"{target}: no heading #{fragment} in {path.name}")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


def test_the_link_check_sees_a_broken_link() -> None:
    text = "See [a](gone.md), [b](#nowhere), `[c](also-gone.md)` and [d](https://x.org).\n"
    found = LINK.findall(prose(text))
    assert found == ["gone.md", "#nowhere", "https://x.org"]


def test_ci_reads_the_test_commands_that_contributing_shows() -> None:
    """.ci/run's own extraction, run on the guide it names, finds both pytest commands."""
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^(\w+)\(\) \{\n.*?^\}\n", script, re.S | re.M)
    assert function, ".ci/run lost the function that reads the test commands"
    assert "CONTRIBUTING.md" in function.group(0)
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for marker, extra in (("test-command", "train,dev"), ("test-command-no-train", "'.[dev]'")):
        shown = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```", guide, re.S)
        assert shown, f"CONTRIBUTING.md has no sh block after <!-- {marker} -->"
        read = subprocess.run(
            ["bash", "-c", f"{function.group(0)}{function.group(1)} {marker}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert read == shown.group(1)
        assert "python -m pytest" in read and extra in read
    assert "<!-- test-command" not in (REPO / "README.md").read_text(encoding="utf-8")


def layer_picture() -> list[list[str]]:
    """The parts of tui_course on each line of CONTRIBUTING.md's picture, top line first; a
    line of dashes (the Textual rule) is an empty row."""
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- layers -->\n```text\n(.*?)\n```", guide, re.S)
    assert found, "CONTRIBUTING.md lost its <!-- layers --> picture"
    rows = []
    for line in found.group(1).splitlines()[1:]:
        names = []
        for word in line.split():  # the names, up to the first word of the description
            if not re.fullmatch(r"\w+/|\w+\.py", word):
                break
            names.append(word)
        rows.append([] if line.strip().startswith("---") else names)
    return rows


def part_of(module: str) -> str:
    """The picture's name for the part of tui_course a module is in: `content/`, `paths.py`."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__.py"
    if (MODULES[".".join(parts[:2])]).name == "__init__.py":
        return f"{parts[1]}/"
    return f"{parts[1]}.py"


def test_the_layer_picture_names_every_part_once() -> None:
    named = [name for row in layer_picture() for name in row]
    parts = {part_of(module) for module in MODULES}
    assert sorted(named) == sorted(set(named)), "a part is drawn twice"
    assert set(named) == parts, (
        f"missing from the picture: {sorted(parts - set(named))}; "
        f"not in tui_course: {sorted(set(named) - parts)}"
    )


def test_imports_point_down_the_layer_picture() -> None:
    rows = layer_picture()
    line_of = {name: number for number, row in enumerate(rows) for name in row}
    upward = sorted(
        f"{module} -> {target}"
        for module in MODULES
        for target in imports_of(module)
        if part_of(module) != part_of(target)
        and line_of[part_of(target)] <= line_of[part_of(module)]
    )
    assert not upward, "imports that point up (or across a line) in the picture: " + ", ".join(
        upward
    )


def test_nothing_under_the_rule_imports_textual() -> None:
    rows = layer_picture()
    rule = rows.index([])
    below = {name for row in rows[rule + 1 :] for name in row}
    found = []
    for module, path in MODULES.items():
        if part_of(module) not in below:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [f"{module}: {n}" for n in names if n.split(".")[0] == "textual"]
            found += [f"{module}: {n}" for n in names if n.startswith("tui_course.ui")]
    assert not found, found
