"""Each question kind names its key's type (content.models.Key), and that is the type the
quizzes load: the shipped course and the fixture courses. Enum dispatch on Kind left in
the tree is a `match` ending in `assert_never`, so mypy lists what a new kind must handle."""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path

import pytest

from tui_course.content import kinds
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Question

REPO = Path(__file__).resolve().parents[2]
COURSES = [REPO, *sorted(p for p in (REPO / "tests" / "fixtures").iterdir() if p.is_dir())]


def key_type(kind: Kind) -> object:
    """The key type the kind's class is declared generic in (QuestionKind[...])."""
    for cls in type(kinds.kind_of(kind)).__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            args = typing.get_args(base)
            if args and not isinstance(args[0], typing.TypeVar):
                return args[0]
    raise AssertionError(f"the {kind} kind names no key type")


def conforms(value: object, declared: object) -> bool:
    """`value` is of the declared type, items included (the forms a key can take)."""
    if declared is None or declared is type(None):
        return value is None
    if isinstance(declared, types.UnionType):
        return any(conforms(value, arm) for arm in typing.get_args(declared))
    origin, args = typing.get_origin(declared), typing.get_args(declared)
    if origin is None:
        assert isinstance(declared, type)
        return isinstance(value, declared) and not isinstance(value, bool)
    if not isinstance(value, origin):
        return False
    assert isinstance(value, tuple | frozenset)
    return all(conforms(item, args[0]) for item in value)


def loaded_questions() -> list[Question]:
    found: list[Question] = []
    for root in COURSES:
        if (root / "quizzes").is_dir():
            found.extend(q for quiz in load_course(root).quizzes for q in quiz.questions)
    return found


def test_every_kind_declares_its_key_type() -> None:
    declared = {kind: key_type(kind) for kind in Kind}
    assert declared[Kind.CHOICE] is int
    assert declared[Kind.ORDER] == tuple[int, ...]
    assert declared[Kind.TEXT] == tuple[str, ...]


@pytest.mark.parametrize("kind", list(Kind))
def test_loaded_keys_and_mistakes_have_their_kind_s_key_type(kind: Kind) -> None:
    questions = [q for q in loaded_questions() if q.kind is kind]
    assert questions, f"no {kind} question in the shipped or fixture courses"
    declared = key_type(kind)
    for question in questions:
        assert conforms(question.answer, declared), (kind, question.line, question.answer)
        for mistake in question.mistakes:
            assert conforms(mistake.answer, declared), (kind, question.line, mistake.answer)


def _is_kind_member(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Kind"
    )


def test_enum_dispatch_on_kind_is_a_match_ending_in_assert_never() -> None:
    """No `x.kind is Kind.CHOICE` or `in (Kind.A, Kind.B)`: a new kind would slip past
    them; every `match` with a Kind case ends in `case _: assert_never(...)`."""
    found: list[str] = []
    for path in sorted((REPO / "tui_course").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(REPO)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for operand in operands:
                    members = operand.elts if isinstance(operand, ast.Tuple | ast.Set) else []
                    if _is_kind_member(operand) or any(map(_is_kind_member, members)):
                        found.append(f"{where}:{node.lineno}: a comparison with Kind")
            if isinstance(node, ast.Match):
                patterns = [case.pattern for case in node.cases]
                on_kind = any(
                    _is_kind_member(sub.value)
                    for pattern in patterns
                    for sub in ast.walk(pattern)
                    if isinstance(sub, ast.MatchValue)
                )
                last = node.cases[-1]
                ends = (
                    isinstance(last.pattern, ast.MatchAs)
                    and last.pattern.pattern is None
                    and "assert_never" in ast.unparse(last)
                )
                if on_kind and not ends:
                    found.append(f"{where}:{node.lineno}: a match on Kind without assert_never")
    assert found == []
