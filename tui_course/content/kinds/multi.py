"""Multiple choice: the exact set of right options counts."""

from __future__ import annotations

from typing import Any

from tui_course.content.kinds.options import OptionsKind, options_picked
from tui_course.content.models import Kind, Question


class MultiKind(OptionsKind):
    kind = Kind.MULTI
    screen_keys = "pick all that apply (1-9, Space), Enter"
    plain_prompt = "Type the numbers of all that apply, with commas or spaces (1, 3)"

    def picked(self, question: Question, raw: str) -> Any:
        return options_picked(raw, question)

    def _key(self, question: Question) -> list[int]:
        return sorted(question.answer)


KIND = MultiKind()
