"""Multiple choice: the exact set of right options counts."""

from __future__ import annotations

from typing import Any

from tui_course.content.kinds.lms import LmsAnswers
from tui_course.content.kinds.options import (
    OptionsKind,
    option_number,
    option_rows,
    options_picked,
)
from tui_course.content.models import Kind, Mistake, Question
from tui_course.content.tomlfile import TableCheck


class MultiKind(OptionsKind[frozenset[int]]):
    kind = Kind.MULTI
    screen_keys = "pick all that apply (1-9, Space), Enter"
    picks_several = True
    plain_prompt = "Type the numbers of all that apply, with commas or spaces (1, 3)"

    def picked(self, question: Question[frozenset[int]], raw: str) -> frozenset[int]:
        return options_picked(raw, question)

    def read_key(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool,
    ) -> Any:
        value = table[key]
        numbers = value if isinstance(value, list) else [value]
        if not numbers:
            raise check.error(f"'{key}' must name at least one option", key)
        chosen = frozenset(option_number(check, item, options, key) for item in numbers)
        if len(chosen) != len(numbers):
            raise check.error(f"'{key}' names an option twice", key)
        return chosen

    def _key(self, question: Question[frozenset[int]]) -> list[int]:
        return sorted(question.answer)

    def renumbered(self, key: frozenset[int], where: dict[int, int]) -> frozenset[int]:
        return frozenset(where[number] for number in key)

    def lms_answers(self, question: Question[frozenset[int]]) -> LmsAnswers:
        """Every option weighted (multi_weights), with the feedback Moodle can place."""
        key_set = frozenset(question.answer)
        feedback: dict[int, str] = {}
        unplaced: list[Mistake[frozenset[int]]] = []
        for mistake in question.mistakes:
            extra = frozenset(mistake.answer) - key_set
            # Moodle shows an option's feedback whenever it is ticked: that matches the
            # app's "the key plus this wrong option" and nothing else.
            if len(extra) == 1 and key_set <= mistake.answer and min(extra) not in feedback:
                feedback[min(extra)] = mistake.feedback
            else:
                unplaced.append(mistake)
        right, wrong = multi_weights(len(key_set), len(question.options) - len(key_set))
        rows = option_rows(question, key_set, (right, wrong), feedback)
        return LmsAnswers(rows, tuple(unplaced))


def multi_weights(right: int, wrong: int) -> tuple[float, float]:
    """Right options share +100 %; wrong ones share -100 %, so ticking everything scores 0."""
    return 100.0 / right, (-100.0 / wrong if wrong else 0.0)


KIND = MultiKind()
