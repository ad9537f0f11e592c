"""A number, within a tolerance; the key may be an expression the validator recomputes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui_course.content.grading import (
    NumberReader,
    Verdict,
    format_number,
    numbers_close,
    numeric_keys,
)
from tui_course.content.kinds.base import QuestionKind
from tui_course.content.models import Kind, Question
from tui_course.content.tomlfile import TableCheck


class NumericKind(QuestionKind):
    kind = Kind.NUMERIC
    screen_keys = "a number, 2/3 or 1/sqrt(2), Enter"
    plain_prompt = "Type a number (0.5, 0,5, 2/3 or 1/sqrt(2) work)"
    typed = True
    moodle_type = "numerical"

    def parse(self, table: dict[str, Any], check: TableCheck, quiz_dir: Path | None) -> Question:
        from tui_course.content.quizzes import keyed_question

        return keyed_question(self.kind, table, check)

    def grade(self, question: Question, raw: str, read_number: NumberReader) -> Verdict:
        number = read_number(raw)
        correct = any(numbers_close(number, key, question) for key in numeric_keys(question))
        feedback = next(
            (
                m.feedback
                for m in question.mistakes
                if m.answer is not None and numbers_close(number, float(m.answer), question)
            ),
            None,
        )
        return Verdict(
            correct, self.expected_text(question), None if correct else feedback, read_as=number
        )

    def expected_text(self, question: Question) -> str:
        return format_number(numeric_keys(question)[0], question)


KIND = NumericKind()
