"""A number, within a tolerance; the key may be an expression the validator recomputes."""

from __future__ import annotations

import math
from typing import Any

from tui_course.content.grading import (
    NumberReader,
    Verdict,
    format_number,
    numbers_close,
    numeric_keys,
)
from tui_course.content.kinds.base import QuestionKind
from tui_course.content.kinds.lms import (
    ExportError,
    LmsAnswers,
    LmsForm,
    LmsRow,
    MoodleField,
    MoodleGaps,
)
from tui_course.content.models import Kind, NumericSpec, Question
from tui_course.content.question_fields import tolerance_problem
from tui_course.content.tomlfile import TableCheck

NUMBER = (int, float)


class NumericKind(QuestionKind[float | None]):
    kind = Kind.NUMERIC
    screen_keys = "a number, 2/3 or 1/sqrt(2), Enter"
    plain_prompt = "Type a number (0.5, 0,5, 2/3 or 1/sqrt(2) work)"
    typed = True
    reads_numbers = True
    moodle_type = "numerical"
    lms_form = LmsForm.NUMBER

    def read_key(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool,
    ) -> Any:
        value = table.get(key)
        if value is None:
            if "answer_from" not in table:
                raise check.error("a numeric question needs 'answer' or 'answer_from'")
            return None
        if several and isinstance(value, list):
            # a list: the key first, then other readings a careful student may give
            if not value or any(
                isinstance(v, bool) or not isinstance(v, NUMBER) or not math.isfinite(v)
                for v in value
            ):
                raise check.error(f"'{key}' must be a finite number or a list of them", key)
            return tuple(float(v) for v in value)
        if isinstance(value, bool) or not isinstance(value, NUMBER):
            raise check.error(f"'{key}' must be a number", key)
        if not math.isfinite(value):
            raise check.error(f"'{key}' must be a finite number, not {value}", key)
        return float(value)

    def numeric_fields(
        self, check: TableCheck, table: dict[str, Any], answer: Any
    ) -> tuple[float | None, NumericSpec]:
        """The key (the first of a list; the rest are other readings graded right), and how
        it is computed and how close counts, each proved here."""
        also_accepted: tuple[float, ...] = ()
        if isinstance(answer, tuple):
            answer, also_accepted = answer[0], answer[1:]
        tolerance = float(table.get("tolerance", 0.0))
        rel_tolerance = float(table.get("rel_tolerance", 0.0))
        for key, value in (("tolerance", tolerance), ("rel_tolerance", rel_tolerance)):
            if not math.isfinite(value) or value < 0:
                raise check.error(f"'{key}' must be a finite number, not negative", key)
        if answer is not None and (problem := tolerance_problem(answer, tolerance, rel_tolerance)):
            raise check.error(problem, "tolerance" if "tolerance" in table else "rel_tolerance")
        # the mistakes' own answer_from (QUESTION_FIELDS made `mistake` a list of tables;
        # each entry's fields are checked with the mistake)
        computed = tuple(entry.get("answer_from") for entry in table.get("mistake", []))
        mistakes_from = computed if any(source is not None for source in computed) else ()
        spec = NumericSpec(
            table.get("answer_from"), tolerance, rel_tolerance, also_accepted, mistakes_from
        )
        return answer, spec

    def mistake_problem(self, wrong: float | None, key: float | None) -> str | None:
        return None  # within the tolerance of a computed key: proved in answers.py

    def grade(
        self, question: Question[float | None], raw: str, read_number: NumberReader
    ) -> Verdict:
        number = read_number(raw)
        spec = question.numeric_spec
        correct = any(numbers_close(number, key, spec) for key in numeric_keys(question))
        feedback = next(
            (
                m.feedback
                for m in question.mistakes
                if m.answer is not None and numbers_close(number, m.answer, spec)
            ),
            None,
        )
        return Verdict(
            correct, self.expected_text(question), None if correct else feedback, read_as=number
        )

    def expected_text(self, question: Question[float | None]) -> str:
        return format_number(numeric_keys(question)[0], question.numeric_spec)

    # LMS export

    def lms_answers(self, question: Question[float | None]) -> LmsAnswers:
        """The key, the other readings graded right, and each mistake, all with one margin
        (numeric_margins.moodle_tolerance)."""
        from tui_course.content.kinds.numeric_margins import (
            moodle_number_problem,
            moodle_tolerance,
            number_text,
        )

        if question.answer is None or not math.isfinite(float(question.answer)):
            raise ExportError(f"the key {question.answer} is not a finite number")
        key = float(question.answer)
        also_accepted = question.numeric_spec.also_accepted
        tolerance = moodle_tolerance(question.numeric_spec, key)
        for value in (key, *also_accepted):
            problem = moodle_number_problem(float(value), tolerance)
            if problem:
                raise ExportError(problem)
        rows = [
            LmsRow(number_text(right), 100.0, "", tolerance)
            for right in (key, *also_accepted)  # other readings graded right too
        ]
        for mistake in question.mistakes:
            if mistake.answer is not None:
                wrong = float(mistake.answer)
                rows.append(LmsRow(number_text(wrong), 0.0, mistake.feedback, tolerance))
        return LmsAnswers(tuple(rows))

    def moodle_fields(self) -> tuple[MoodleField, ...]:
        # Moodle's units, none asked for.
        return tuple(
            MoodleField(tag, value, after_answers=True)
            for tag, value in (
                ("unitgradingtype", "0"),
                ("unitpenalty", "0"),
                ("showunits", "3"),
                ("unitsleft", "0"),
            )
        )

    def moodle_gaps(self, question: Question[float | None]) -> MoodleGaps:
        """Keys Moodle would round out of their margin (an expression's key not computed
        yet is not looked at)."""
        from tui_course.content.kinds.numeric_margins import (
            moodle_number_problem,
            moodle_tolerance,
        )

        if question.answer is None or not math.isfinite(float(question.answer)):
            return MoodleGaps()
        key = float(question.answer)
        tolerance = moodle_tolerance(question.numeric_spec, key)
        problems = (
            moodle_number_problem(float(value), tolerance)
            for value in (key, *question.numeric_spec.also_accepted)
        )
        return MoodleGaps(refused=tuple(problem for problem in problems if problem))


KIND = NumericKind()
