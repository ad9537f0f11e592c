"""No import circles in tui_course: not between modules, not between its top-level parts.

Imports are read with ast, every one of them: deferred ones inside functions (they still
tie the two modules together) and type-only ones under `if TYPE_CHECKING:` (a module
that needs another's types to be read is tied to it as much as one that runs it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import tui_course

ROOT = Path(tui_course.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in ROOT.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The tui_course modules `name` imports (`from a.b import c` is a.b.c when that is a
    module, else a.b; a package's __init__ running first is not counted as an import)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def part_of(name: str) -> str:
    """The top-level part of tui_course a module belongs to (tui_course.cli, .commands...)."""
    return ".".join(name.split(".")[:2])


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def module_graph() -> dict[str, set[str]]:
    return {name: imports_of(name) for name in MODULES}


def test_the_graph_reader_sees_imports() -> None:
    graph = module_graph()
    assert "tui_course.content.models" in graph["tui_course.content.session"]
    assert "tui_course.ui.app" in graph["tui_course.commands.launch"]  # a deferred one


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reader_sees_type_only_imports() -> None:
    graph = module_graph()
    # only under `if TYPE_CHECKING:` in render/quiz.py
    assert "tui_course.views.quiz" in graph["tui_course.render.quiz"]


def test_no_module_imports_itself_back() -> None:
    found = circles(module_graph())
    assert found == []


def test_no_top_level_part_imports_itself_back() -> None:
    parts: dict[str, set[str]] = {}
    for name, targets in module_graph().items():
        mine = part_of(name)
        parts.setdefault(mine, set()).update(part_of(t) for t in targets if part_of(t) != mine)
    assert circles(parts) == []
