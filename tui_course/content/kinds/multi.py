"""Multiple choice: the exact set of right options counts."""

from __future__ import annotations

from typing import Any

from tui_course.content.kinds.options import OptionsKind, option_number, options_picked
from tui_course.content.models import Kind, Question
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


KIND = MultiKind()
