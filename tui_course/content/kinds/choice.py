"""Single choice: exactly one right option; never as many tries as wrong options."""

from __future__ import annotations

from typing import Any

from tui_course.content.grading import AnswerFormatError
from tui_course.content.kinds.lms import LmsAnswers
from tui_course.content.kinds.options import (
    OptionsKind,
    option_number,
    option_rows,
    options_picked,
)
from tui_course.content.models import Kind, Question
from tui_course.content.tomlfile import TableCheck


class ChoiceKind(OptionsKind[int]):
    kind = Kind.CHOICE
    screen_keys = "pick one (1-9, arrows), Enter"
    plain_prompt = "Type the number of one option"

    def picked(self, question: Question[int], raw: str) -> int:
        picked = options_picked(raw, question)
        if len(picked) != 1:
            raise AnswerFormatError("Pick exactly one option.")
        return next(iter(picked))

    def read_key(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool,
    ) -> Any:
        value = table[key]
        if isinstance(value, list):
            raise check.error(
                f"single choice needs exactly one correct option, got {len(value)}"
                ' (use kind = "multi" for several)',
                key,
            )
        return option_number(check, value, options, key)

    def _key(self, question: Question[int]) -> list[int]:
        return [question.answer]

    def renumbered(self, key: int, where: dict[int, int]) -> int:
        return where[key]

    def max_tries(self, question: Question[int], tries: int) -> int:
        # Trying every option (2 options: a second try) would make the last try a sure thing.
        return min(tries, len(question.options) - 1)

    def lms_answers(self, question: Question[int]) -> LmsAnswers:
        """The key at 100 %, the other options at 0 %, each mistake's feedback on its option."""
        feedback = {mistake.answer: mistake.feedback for mistake in question.mistakes}
        return LmsAnswers(
            option_rows(question, frozenset({question.answer}), (100.0, 0.0), feedback)
        )


KIND = ChoiceKind()
