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
from tui_course.content.grading import normalise_text
from tui_course.content.lessons import blocks_problem
from tui_course.content.models import Kind, Mistake, Question, Quiz
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field, TableCheck, TomlLines, parse_toml, read_text
from tui_course.safe_text import one_line

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # \Z: `$` also matches before a final newline
_NUMBER = (int, float)
MAX_OPTIONS = 9  # options are picked with the keys 1-9
MAX_TRIES = 9

QUIZ_FIELDS = {
    "id": Field((str,), "a quiz id (lowercase letters, digits, dashes)", required=True),
    "title": Field((str,), "a string", required=True),
    "after": Field((str,), "the id of a lesson"),
    "intro": Field((str,), "a string"),
    "tries": Field((int,), f"a whole number of tries, 1 to {MAX_TRIES}"),
    "question": Field((list,), "one or more [[question]] tables", required=True, items=dict),
}
QUESTION_FIELDS = {
    "kind": Field((str,), "a question kind (choice, multi, numeric, text...)", required=True),
    "prompt": Field((str,), "a string", required=True),
    "explanation": Field((str,), "a string", required=True),
    "options": Field((list,), "a list of strings", items=str),
    "answer": Field((int, float, str, list), "the answer key"),
    "answer_from": Field((str,), "an expression over tui_course.maths"),
    "tolerance": Field(_NUMBER, "a number (absolute tolerance)"),
    "rel_tolerance": Field(_NUMBER, "a number (relative tolerance)"),
    "hints": Field((list,), "a list of strings", items=str),
    "tries": Field((int,), f"a whole number of tries, 1 to {MAX_TRIES}"),
    "mistake": Field((list,), "[[question.mistake]] tables", items=dict),
}
CODE_QUESTION_FIELDS = {
    **{key: spec for key, spec in QUESTION_FIELDS.items() if key not in ("options", "answer")},
    **CODE_FIELDS,
}
del CODE_QUESTION_FIELDS["answer_from"]
MISTAKE_FIELDS = {
    "answer": Field((int, float, str, list), "the wrong answer this feedback is for"),
    "answer_from": Field((str,), "an expression over tui_course.maths"),
    "feedback": Field((str,), "a string", required=True),
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


def tolerance_problem(key: float, tolerance: float, rel_tolerance: float) -> str | None:
    """A tolerance so wide that almost any answer passes (more than 10x the key's size).

    Keys near zero are measured against 1, so `answer = 0, tolerance = 0.01` stays fine.
    """
    width = max(tolerance, rel_tolerance * abs(key))
    if width > 10 * max(abs(key), 1.0):
        return f"tolerance {width:g} is wider than 10 times the key {key:g}: almost anything passes"
    return None


def tries_of(check: TableCheck, table: dict[str, Any]) -> int | None:
    tries = table.get("tries")
    if tries is not None and (isinstance(tries, bool) or not 1 <= tries <= MAX_TRIES):
        raise check.error(f"'tries' must be 1 to {MAX_TRIES}, got {tries}", "tries")
    return tries if tries is None else int(tries)


def _check_blocks(check: TableCheck, key: str | None, markdown: str) -> None:
    """Markdown shown on the quiz screen must not be too many blocks to draw."""
    too_big = blocks_problem(markdown)
    if too_big is not None:
        raise check.error(too_big[1], key)


def nonempty(check: TableCheck, table: dict[str, Any], key: str) -> str:
    value = str(table[key]).strip()
    if not value:
        raise check.error(f"'{key}' must not be empty", key)
    return value


def _question(table: dict[str, Any], check: TableCheck, quiz_dir: Path | None = None) -> Question:
    from tui_course.content import kinds

    try:
        kind = Kind(str(table.get("kind", "")))
    except ValueError:
        check.check(table, QUESTION_FIELDS)
        raise check.error(f"unknown kind '{table['kind']}' ({kinds.names()})", "kind") from None
    return kinds.kind_of(kind).parse(table, check, quiz_dir)


def keyed_question(kind: Kind, table: dict[str, Any], check: TableCheck) -> Question:
    """A question whose key is written in `answer` (choice, multi, numeric, text)."""
    from tui_course.content import kinds

    check.check(table, QUESTION_FIELDS)
    reads = kinds.kind_of(kind)
    prompt = nonempty(check, table, "prompt")
    explanation = nonempty(check, table, "explanation")
    options = tuple(option.strip() for option in table.get("options", []))
    if reads.picks_options:
        _check_options(check, options)
    elif "options" in table:
        raise check.error(
            f"'options' is only for choice and multi questions, not {kind}", "options"
        )
    if not reads.reads_numbers:
        for key in ("answer_from", "tolerance", "rel_tolerance"):
            if key in table:
                raise check.error(f"'{key}' is only for numeric questions", key)
    answer = _answer(check, kind, table, options, "answer", several=True)
    also_accepted: tuple[float, ...] = ()
    if reads.reads_numbers and isinstance(answer, tuple):
        answer, also_accepted = answer[0], answer[1:]
    tolerance = float(table.get("tolerance", 0.0))
    rel_tolerance = float(table.get("rel_tolerance", 0.0))
    for key, value in (("tolerance", tolerance), ("rel_tolerance", rel_tolerance)):
        if not math.isfinite(value) or value < 0:
            raise check.error(f"'{key}' must be a finite number, not negative", key)
    if (
        reads.reads_numbers
        and answer is not None
        and (problem := tolerance_problem(answer, tolerance, rel_tolerance))
    ):
        raise check.error(problem, "tolerance" if "tolerance" in table else "rel_tolerance")
    mistakes = []
    for index, entry in enumerate(table.get("mistake", [])):
        mistake_check = check.entry("mistake", index)
        mistakes.append(_mistake(mistake_check, kind, entry, options, answer))
    return Question(
        kind=kind,
        prompt=prompt,
        explanation=explanation,
        line=check.lines.line_of(check.path) or 1,
        options=options,
        answer=answer,
        answer_from=table.get("answer_from"),
        tolerance=tolerance,
        rel_tolerance=rel_tolerance,
        hints=tuple(hint.strip() for hint in table.get("hints", [])),
        mistakes=tuple(mistakes),
        tries=tries_of(check, table),
        also_accepted=also_accepted,
    )


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
        tolerance=spec.tolerance,
        rel_tolerance=spec.rel_tolerance,
        hints=tuple(hint.strip() for hint in table.get("hints", [])),
        tries=tries_of(check, table),
        code=spec,
    )


def _check_options(check: TableCheck, options: tuple[str, ...]) -> None:
    if not 2 <= len(options) <= MAX_OPTIONS:
        raise check.error(
            f"needs between 2 and {MAX_OPTIONS} options, got {len(options)}", "options"
        )
    if any(not option for option in options):
        raise check.error("options must not be empty", "options")
    seen = [normalise_text(option) for option in options]
    if len(set(seen)) != len(seen):
        raise check.error("two options have the same text", "options")


def _answer(
    check: TableCheck,
    kind: Kind,
    table: dict[str, Any],
    options: tuple[str, ...],
    key: str,
    several: bool = False,
) -> Any:
    """The answer key in its graded form, read by its kind (numeric may be None when
    answer_from gives it)."""
    from tui_course.content import kinds

    reads = kinds.kind_of(kind)
    if table.get(key) is None and not reads.reads_numbers:  # numeric: answer_from may give it
        raise check.error(f"missing required key '{key}'")
    return reads.read_key(check, table, options, key, several)


def _mistake(
    check: TableCheck, kind: Kind, entry: dict[str, Any], options: tuple[str, ...], key: Any
) -> Mistake:
    from tui_course.content import kinds

    check.check(entry, MISTAKE_FIELDS)
    reads = kinds.kind_of(kind)
    if not reads.reads_numbers and "answer_from" in entry:
        raise check.error("'answer_from' is only for numeric questions", "answer_from")
    if "answer" not in entry and "answer_from" not in entry:
        raise check.error("a mistake needs 'answer' (or 'answer_from' for numeric)")
    wrong = _answer(check, kind, entry, options, "answer") if "answer" in entry else None
    problem = None if wrong is None else reads.mistake_problem(wrong, key)
    if problem:
        raise check.error(problem, "answer")
    return Mistake(
        answer=wrong,
        feedback=nonempty(check, entry, "feedback"),
        answer_from=entry.get("answer_from"),
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
