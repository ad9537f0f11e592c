"""Load TOML quizzes with a strict schema: unknown keys and wrong types are errors.

Everything that can be proved without NumPy is proved here (option numbers in
range, exactly one key for single choice, mistakes differing from the key).
Numeric keys written as expressions are recomputed by tui_course.answers.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from tui_course.content.code_parse import CODE_FIELDS, parse_code
from tui_course.content.errors import ContentError, display_path
from tui_course.content.lessons import blocks_problem
from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.question_fields import MAX_OPTIONS as MAX_OPTIONS
from tui_course.content.question_fields import MAX_TRIES, nonempty, tries_of
from tui_course.content.question_fields import QUESTION_FIELDS as QUESTION_FIELDS
from tui_course.content.question_fields import tolerance_problem as tolerance_problem
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field, TableCheck, TomlLines, parse_toml, read_text
from tui_course.text.safe import one_line

# (MAX_OPTIONS, QUESTION_FIELDS and tolerance_problem are still read from here by
# classroom/gift.py and answers.py.)
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # \Z: `$` also matches before a final newline
CODE_QUESTION_FIELDS = {
    **{key: spec for key, spec in QUESTION_FIELDS.items() if key not in ("options", "answer")},
    **CODE_FIELDS,
}
del CODE_QUESTION_FIELDS["answer_from"]
QUIZ_FIELDS = {
    "id": Field((str,), "a quiz id (lowercase letters, digits, dashes)", required=True),
    "title": Field((str,), "a string", required=True),
    "after": Field((str,), "the id of a lesson"),
    "intro": Field((str,), "a string"),
    "tries": Field((int,), f"a whole number of tries, 1 to {MAX_TRIES}"),
    "question": Field((list,), "one or more [[question]] tables", required=True, items=dict),
}


def load_quiz(path: Path, root: Path | None = None) -> Quiz:
    shown = display_path(path, root)
    text = strip_control(read_text(path, shown))
    data = parse_toml(text, shown)
    lines = TomlLines(text)
    check = TableCheck(shown, lines, (), "")
    check.check(data, QUIZ_FIELDS)
    if not _ID.match(data["id"]):
        raise check.error(f"id '{data['id']}' must be lowercase letters, digits and dashes", "id")
    if not data["question"]:
        raise check.error("a quiz needs at least one [[question]]")
    questions = tuple(
        _question(
            table,
            TableCheck(shown, lines, ("question", index), f"question {index + 1}"),
            path.parent,
        )
        for index, table in enumerate(data["question"])
    )
    _check_blocks(check, "intro", data.get("intro", ""))
    for index, question in enumerate(questions):
        texts = (question.prompt, question.explanation, *question.hints)
        markdown = "\n\n".join((*texts, *(mistake.feedback for mistake in question.mistakes)))
        _check_blocks(
            TableCheck(shown, lines, ("question", index), f"question {index + 1}"), None, markdown
        )
    return Quiz(
        id=data["id"],
        title=one_line(nonempty(check, data, "title")),
        path=shown,
        questions=questions,
        after=data.get("after"),
        intro=data.get("intro", "").strip(),
        tries=tries_of(check, data),
    )


def _check_blocks(check: TableCheck, key: str | None, markdown: str) -> None:
    """Markdown shown on the quiz screen must not be too many blocks to draw."""
    too_big = blocks_problem(markdown)
    if too_big is not None:
        raise check.error(too_big[1], key)


def _question(table: dict[str, Any], check: TableCheck, quiz_dir: Path | None = None) -> Question:
    from tui_course.content import kinds

    try:
        kind = Kind(str(table.get("kind", "")))
    except ValueError:
        check.check(table, QUESTION_FIELDS)
        raise check.error(f"unknown kind '{table['kind']}' ({kinds.names()})", "kind") from None
    return kinds.kind_of(kind).parse(table, check, quiz_dir)


def code_question(table: dict[str, Any], check: TableCheck, quiz_dir: Path | None) -> Question:
    check.check(table, CODE_QUESTION_FIELDS)
    spec = parse_code(table, check, quiz_dir)
    for key in ("tolerance", "rel_tolerance"):
        value = float(table.get(key, 1e-6))
        if not math.isfinite(value) or not 0 <= value <= 1:
            raise check.error(f"'{key}' must be a number from 0 to 1", key)
    return Question(
        kind=Kind.CODE,
        prompt=nonempty(check, table, "prompt"),
        explanation=nonempty(check, table, "explanation"),
        line=check.lines.line_of(check.path) or 1,
        hints=tuple(hint.strip() for hint in table.get("hints", [])),
        tries=tries_of(check, table),
        code=spec,
    )


def load_quizzes(folder: Path, root: Path | None = None) -> tuple[list[Quiz], list[ContentError]]:
    """Every *.toml quiz in the folder; a broken file is reported and skipped."""
    quizzes: list[Quiz] = []
    problems: list[ContentError] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            quizzes.append(load_quiz(path, root))
        except ContentError as error:
            problems.append(error)
        except Exception as error:  # a loader bug must not stop the rest of the course
            shown = display_path(path, root)
            problems.append(ContentError(shown, None, f"cannot be loaded: {error!r}"))
    return quizzes, problems
