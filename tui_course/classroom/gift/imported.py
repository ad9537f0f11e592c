"""What a GIFT import gives (a quiz's table with the GIFT line of each question), and that
table as TOML the app's own loader and key prover accept, or else an error at a GIFT line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tui_course.content.errors import ContentError


@dataclass
class ImportedQuiz:
    """One quiz in the TOML schema of content/quizzes.py, with the GIFT line of each question."""

    data: dict[str, Any]
    question_lines: list[int] = field(default_factory=list)
    line: int | None = None  # its `// attn-tui quiz:` header, if it has one


@dataclass
class GiftImport:
    quizzes: list[ImportedQuiz]
    notes: list[str]  # "file:line: what was left out", for stderr


def checked_toml(quiz: ImportedQuiz, shown: str) -> str:
    """The quiz as TOML that the app's own loader and key prover accept.

    Anything they refuse is reported at the GIFT line of the question concerned.
    """
    import tempfile
    from pathlib import Path

    from tui_course.answers import prove_quiz
    from tui_course.classroom.quiz_toml import dumps
    from tui_course.content.quizzes import load_quiz

    try:
        text = dumps(quiz.data)
    except ValueError as error:
        raise ContentError(shown, None, f"cannot be written as a quiz: {error}") from None
    with tempfile.TemporaryDirectory(prefix="attn-tui-import-") as folder:
        path = Path(folder) / "quiz.toml"  # never the id: it comes from the file
        path.write_text(text, encoding="utf-8")
        try:
            problems = prove_quiz(load_quiz(path))
        except ContentError as error:
            problems = [error]
    if problems:
        raise ContentError(shown, _gift_line(quiz, text, problems[0]), problems[0].message)
    return text


def _gift_line(quiz: ImportedQuiz, toml: str, problem: ContentError) -> int | None:
    """The GIFT line behind a problem the loader found in the TOML written from it: the
    question it names, else the question whose table holds its TOML line, else the
    quiz header."""
    match = re.match(r"question (\d+)", problem.message)
    number = int(match.group(1)) if match else None
    if number is None and problem.line is not None:
        above = toml.split("\n")[: problem.line]
        number = sum(line == "[[question]]" for line in above) or None
    if number is not None and 0 < number <= len(quiz.question_lines):
        return quiz.question_lines[number - 1]
    return quiz.line
