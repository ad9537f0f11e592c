"""Typed text, read through one normalisation (grading.normalise_text) before comparing."""

from __future__ import annotations

from typing import Any

from tui_course.content.grading import (
    AnswerFormatError,
    NumberReader,
    Verdict,
    matches_text,
    normalise_text,
    other_form,
)
from tui_course.content.kinds.base import QuestionKind
from tui_course.content.kinds.lms import LmsAnswers, LmsForm, LmsRow, MoodleField, MoodleGaps
from tui_course.content.models import Kind, Question
from tui_course.content.tomlfile import TableCheck


class TextKind(QuestionKind[tuple[str, ...]]):
    kind = Kind.TEXT
    screen_keys = "type the answer, Enter"
    plain_prompt = "Type the answer"
    typed = True
    moodle_type = "shortanswer"
    lms_form = LmsForm.TYPED

    def read_key(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool,
    ) -> Any:
        value = table[key]
        variants = value if isinstance(value, list) else [value]
        if not variants or not all(isinstance(v, str) and v.strip() for v in variants):
            raise check.error(f"'{key}' must be a non-empty string or list of strings", key)
        return tuple(v.strip() for v in variants)

    def mistake_problem(self, wrong: tuple[str, ...], key: tuple[str, ...]) -> str | None:
        for variant in wrong:
            if matches_text(variant, key):
                return (
                    f"this mistake's answer '{variant}' reads as a key ({normalise_text(variant)})"
                )
        return None

    def grade(
        self, question: Question[tuple[str, ...]], raw: str, read_number: NumberReader
    ) -> Verdict:
        correct = matches_text(raw, question.answer)
        feedback = next(
            (m.feedback for m in question.mistakes if matches_text(raw, m.answer)), None
        )
        if not correct and feedback is None:
            form = other_form(raw, question)
            if form is not None:
                raise AnswerFormatError(f"Write the answer in the form {form}: this costs no try.")
        return Verdict(correct, self.expected_text(question), None if correct else feedback)

    def expected_text(self, question: Question[tuple[str, ...]]) -> str:
        return question.answer[0]

    def as_graded(
        self, raw: str, question: Question[tuple[str, ...]], order: tuple[int, ...]
    ) -> str:
        return normalise_text(raw)

    # LMS export: Moodle compares as typed, so each key and mistake goes out in every form
    # the app reads as it (text_forms)

    def lms_answers(self, question: Question[tuple[str, ...]]) -> LmsAnswers:
        from tui_course.content.kinds.text_forms import all_variants, text_keys

        rows = [LmsRow(variant, 100.0) for variant in text_keys(question)]
        for mistake in question.mistakes:
            rows.extend(
                LmsRow(variant, 0.0, mistake.feedback) for variant in all_variants(mistake.answer)
            )
        return LmsAnswers(tuple(rows))

    def moodle_fields(self) -> tuple[MoodleField, ...]:
        return (MoodleField("usecase", "0"),)  # case ignored, as the app ignores it

    def moodle_gaps(self, question: Question[tuple[str, ...]]) -> MoodleGaps:
        from tui_course.content.kinds.text_forms import forms_left_out

        return MoodleGaps(marked_wrong=forms_left_out(question.answer))


KIND = TextKind()
