"""A function the student writes, checked in the sandbox against the reference
(content.code_model, content.code_parse, content.code_check): graded off the session, so
`grade` is never asked; a failed check never closes the question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui_course.content.grading import NumberReader, Verdict
from tui_course.content.kinds.base import QuestionKind
from tui_course.content.models import Kind, Question
from tui_course.content.tomlfile import TableCheck


class CodeKind(QuestionKind[None]):
    kind = Kind.CODE
    screen_keys = "write the function, ctrl+r (or F5) checks it"
    checked = True
    plain_prompt = None  # typed at the prompt or read from a file: plain/code.py
    no_moodle = "Moodle cannot run a student's function in attn-tui's sandbox"
    no_gift = no_moodle

    def parse(
        self, table: dict[str, Any], check: TableCheck, quiz_dir: Path | None
    ) -> Question[None]:
        from tui_course.content.quizzes import code_question

        return code_question(table, check, quiz_dir)

    def grade(self, question: Question[None], raw: str, read_number: NumberReader) -> Verdict:
        raise ValueError("a code question is graded by its check (QuizSession.answer_code)")

    def expected_text(self, question: Question[None]) -> str:
        return "the model solution"

    def as_graded(self, raw: str, question: Question[None], order: tuple[int, ...]) -> str:
        from tui_course.content.session import code_key

        return code_key(raw)


KIND = CodeKind()
