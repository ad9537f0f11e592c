"""The fields of a quiz's [[question]] tables and the small checks the kinds' readers
share: below both content/quizzes.py and the kinds, so a kind reads its own tables without
importing the quiz loader that dispatches to it."""

from __future__ import annotations

from typing import Any

from tui_course.content.grading import normalise_text
from tui_course.content.tomlfile import Field, TableCheck

NUMBER_TYPES = (int, float)
MAX_OPTIONS = 9  # options are picked with the keys 1-9
MAX_TRIES = 9

QUESTION_FIELDS = {
    "kind": Field((str,), "a question kind (choice, multi, numeric, text...)", required=True),
    "prompt": Field((str,), "a string", required=True),
    "explanation": Field((str,), "a string", required=True),
    "options": Field((list,), "a list of strings", items=str),
    "answer": Field((int, float, str, list), "the answer key"),
    "answer_from": Field((str,), "an expression over tui_course.maths"),
    "tolerance": Field(NUMBER_TYPES, "a number (absolute tolerance)"),
    "rel_tolerance": Field(NUMBER_TYPES, "a number (relative tolerance)"),
    "hints": Field((list,), "a list of strings", items=str),
    "tries": Field((int,), f"a whole number of tries, 1 to {MAX_TRIES}"),
    "mistake": Field((list,), "[[question.mistake]] tables", items=dict),
}
MISTAKE_FIELDS = {
    "answer": Field((int, float, str, list), "the wrong answer this feedback is for"),
    "answer_from": Field((str,), "an expression over tui_course.maths"),
    "feedback": Field((str,), "a string", required=True),
}


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


def nonempty(check: TableCheck, table: dict[str, Any], key: str) -> str:
    value = str(table[key]).strip()
    if not value:
        raise check.error(f"'{key}' must not be empty", key)
    return value


def check_options(check: TableCheck, options: tuple[str, ...]) -> None:
    if not 2 <= len(options) <= MAX_OPTIONS:
        raise check.error(
            f"needs between 2 and {MAX_OPTIONS} options, got {len(options)}", "options"
        )
    if any(not option for option in options):
        raise check.error("options must not be empty", "options")
    seen = [normalise_text(option) for option in options]
    if len(set(seen)) != len(seen):
        raise check.error("two options have the same text", "options")
