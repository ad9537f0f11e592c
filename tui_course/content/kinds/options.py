"""What single and multiple choice share: options picked with 1-9, shown in an order of
their own per student (content/shuffle.py), graded as the set of options picked."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tui_course.content.grading import (
    AnswerFormatError,
    NumberReader,
    Verdict,
    parse_options,
)
from tui_course.content.kinds.base import QuestionKind
from tui_course.content.kinds.lms import LmsForm, LmsRow, MoodleField
from tui_course.content.models import Key as K
from tui_course.content.models import Question
from tui_course.content.tomlfile import TableCheck


def choice_answer(line: str) -> str:
    """Typed option numbers as the quiz screen submits its picks ('3, 1' -> '1,3')."""
    numbers = sorted({int(part) for part in re.findall(r"\d+", line)})
    return ",".join(str(number) for number in numbers)


class OptionsKind(QuestionKind[K]):
    picks_options = True
    empty_answer = "Pick an option first (keys 1-9)."
    moodle_type = "multichoice"
    lms_form = LmsForm.SHOWN

    def picked(self, question: Question[K], raw: str) -> K:
        """The graded form of the picks: an option number (choice) or a set (multi)."""
        raise NotImplementedError

    def grade(self, question: Question[K], raw: str, read_number: NumberReader) -> Verdict:
        value = self.picked(question, raw)
        correct = value == question.answer
        feedback = next((m.feedback for m in question.mistakes if m.answer == value), None)
        return Verdict(correct, self.expected_text(question), None if correct else feedback)

    def expected_text(self, question: Question[K]) -> str:
        return "; ".join(f"{n}. {question.options[n - 1]}" for n in self._key(question))

    def _key(self, question: Question[K]) -> list[int]:
        raise NotImplementedError

    def item_order(self, question: Question[K], seed: str | None) -> tuple[int, ...]:
        if seed is None:
            return super().item_order(question, seed)
        from tui_course.content.shuffle import option_order

        return option_order(seed, len(question.options))

    def shown(self, question: Question[K], order: tuple[int, ...]) -> Question[K]:
        from tui_course.content.shuffle import shown_numbers

        where = shown_numbers(order)
        return replace(
            question,
            options=tuple(question.options[number - 1] for number in order),
            answer=self.renumbered(question.answer, where),
            mistakes=tuple(
                replace(m, answer=self.renumbered(m.answer, where)) for m in question.mistakes
            ),
        )

    def renumbered(self, key: K, where: dict[int, int]) -> K:
        """A key (or a mistake's answer) with each option number as shown (`where`)."""
        raise NotImplementedError

    def stored_answer(self, raw: str, question: Question[K], order: tuple[int, ...]) -> str:
        from tui_course.content.shuffle import stored_answer

        return stored_answer(raw.strip(), question, order)

    def shown_answer(self, stored: str, question: Question[K], order: tuple[int, ...]) -> str:
        from tui_course.content.shuffle import shown_answer

        return shown_answer(stored, question, order)

    def as_graded(self, raw: str, question: Question[K], order: tuple[int, ...]) -> str:
        return self.stored_answer(raw, question, order)

    def stored_as_graded(self, stored: str, question: Question[K]) -> str:
        return stored.replace(" ", "")

    def plain_answer(self, line: str, question: Question[K]) -> str:
        raw = choice_answer(line)
        if not raw:
            raise AnswerFormatError(f"Type an option's number, 1 to {len(question.options)}.")
        return raw

    def plain_key_lines(self, question: Question[K]) -> tuple[str, ...]:
        right = self._key(question)
        named = "; ".join(f"option {n}, {question.options[n - 1]}" for n in right)
        said = f"The {'answers' if len(right) > 1 else 'answer'}: {named}"
        return (said if said.endswith((".", "?", "!", ":")) else said + ".",)

    # LMS export

    def moodle_fields(self) -> tuple[MoodleField, ...]:
        return (
            MoodleField("single", "false" if self.picks_several else "true"),
            # The app shows options in an order of its own for each student (content/shuffle.py).
            MoodleField("shuffleanswers", "true"),
            MoodleField("answernumbering", "123"),
            *(
                MoodleField(tag, "", html=True)
                for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")
            ),
        )


def option_rows(
    question: Question,
    key_set: frozenset[int],
    weights: tuple[float, float],
    feedback: dict[int, str],
) -> tuple[LmsRow, ...]:
    """One Moodle row per option, in the file's order: weighted (right, wrong), with its
    feedback."""
    right, wrong = weights
    return tuple(
        LmsRow(option, right if number in key_set else wrong, feedback.get(number, ""))
        for number, option in enumerate(question.options, start=1)
    )


def option_number(check: TableCheck, value: Any, options: tuple[str, ...], key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise check.error(f"'{key}' must be an option number (1-{len(options)})", key)
    if not 1 <= value <= len(options):
        raise check.error(f"'{key}' = {value} is not an option (1-{len(options)})", key)
    return value


def options_picked(raw: str, question: Question) -> frozenset[int]:
    return parse_options(raw, len(question.options))
