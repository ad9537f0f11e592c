"""What every question kind is asked, with the answers most kinds share.

A kind module subclasses QuestionKind, sets its class attributes and overrides what it
does differently; the rest of the tree calls these methods and never tests the kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol

from tui_course.content.kinds.lms import ExportError, LmsAnswers, LmsForm, MoodleField, MoodleGaps
from tui_course.content.models import Key as K
from tui_course.content.models import Kind, Mistake, NumericSpec, Question
from tui_course.content.question_fields import (
    MISTAKE_FIELDS,
    QUESTION_FIELDS,
    check_options,
    nonempty,
    tries_of,
)

if TYPE_CHECKING:
    from tui_course.content.grading import NumberReader, Verdict
    from tui_course.content.tomlfile import TableCheck


@dataclass(frozen=True)
class Row:
    """One line of an answer drawn as rows (an option, a line to put in order)."""

    marker: str  # "> 2. (*) "
    text: str
    picked: bool


class Draft(Protocol):
    """An answer being put together with keys (rows to arrange): plain and immutable, so
    the quiz view state (views/quiz.py) holds it and the widget only draws its rows."""

    def press(self, number: int) -> Draft | None:
        """Key `number` (1-9) pressed; None when there is no such row."""
        ...

    def step(self, step: int, carry: bool) -> Draft:
        """Up/Down: move the highlight, or with `carry` the picked row itself."""
        ...

    def raw(self) -> str:
        """The answer as the grader reads it (what plain mode types)."""
        ...

    def rows(self, question: Question, closed: bool) -> tuple[Row, ...]:
        """The rows as drawn; `closed`: the question is over (the key may show)."""
        ...


class QuestionKind(Generic[K]):
    """A kind, generic in its key's type (models.Key): its methods see `question.answer`
    and each mistake's `answer` as that type, so mypy checks each kind's use of them."""

    kind: ClassVar[Kind]
    # The quiz screen's key line while the question is open.
    screen_keys: ClassVar[str]
    # Plain mode: how to type an answer (None: the kind is answered another way).
    plain_prompt: ClassVar[str | None]
    # Said when Enter is pressed with nothing picked or typed.
    empty_answer: ClassVar[str] = "Type an answer, then press Enter."
    # The answer is typed in a box (and said back once the question closes).
    typed: ClassVar[bool] = False
    # Its rows are options picked with 1-9 (choice, multi); several of them (multi).
    picks_options: ClassVar[bool] = False
    picks_several: ClassVar[bool] = False
    # Typed answers are read as numbers: a tolerance, a key computed from answer_from, and
    # the reading said back ("read as 0.500").
    reads_numbers: ClassVar[bool] = False
    # Answered by a check of the student's code (its own editor; a failed check is no try).
    checked: ClassVar[bool] = False
    # Moodle XML's question type, or None with the reason it has none; how its answer rows
    # are written (kinds with a moodle_type set it).
    moodle_type: ClassVar[str | None] = None
    no_moodle: ClassVar[str] = ""
    lms_form: ClassVar[LmsForm]
    # GIFT: None when GIFT has a syntax for it, else the one line that says why it is left out.
    no_gift: ClassVar[str | None] = None

    # reading the file

    def parse(self, table: dict[str, Any], check: TableCheck, quiz_dir: Path | None) -> Question[K]:
        """A [[question]] table read by the shared reader of kinds keyed by `answer`
        (choice, multi, numeric, text); code and order read their own."""
        check.check(table, QUESTION_FIELDS)
        prompt = nonempty(check, table, "prompt")
        explanation = nonempty(check, table, "explanation")
        options = tuple(option.strip() for option in table.get("options", []))
        if self.picks_options:
            check_options(check, options)
        elif "options" in table:
            raise check.error(
                f"'options' is only for choice and multi questions, not {self.kind}", "options"
            )
        if not self.reads_numbers:
            for key in ("answer_from", "tolerance", "rel_tolerance"):
                if key in table:
                    raise check.error(f"'{key}' is only for numeric questions", key)
        answer, numeric = self.numeric_fields(
            check, table, self._answer(check, table, options, "answer", several=True)
        )
        mistakes = []
        for index, entry in enumerate(table.get("mistake", [])):
            mistake_check = check.entry("mistake", index)
            mistakes.append(self._mistake(mistake_check, entry, options, answer))
        return Question(
            kind=self.kind,
            prompt=prompt,
            explanation=explanation,
            line=check.lines.line_of(check.path) or 1,
            options=options,
            answer=answer,
            hints=tuple(hint.strip() for hint in table.get("hints", [])),
            mistakes=tuple(mistakes),
            tries=tries_of(check, table),
            numeric=numeric,
        )

    def numeric_fields(
        self, check: TableCheck, table: dict[str, Any], answer: Any
    ) -> tuple[Any, NumericSpec | None]:
        """The key, and the fields of a kind that reads numbers (numeric.py); the others
        have none (their tables were refused any numeric key above)."""
        return answer, None

    def _answer(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool = False,
    ) -> Any:
        """The answer key in its graded form (numeric's may be None when answer_from
        gives it)."""
        if table.get(key) is None and not self.reads_numbers:
            raise check.error(f"missing required key '{key}'")
        return self.read_key(check, table, options, key, several)

    def _mistake(
        self, check: TableCheck, entry: dict[str, Any], options: tuple[str, ...], key: Any
    ) -> Mistake:
        check.check(entry, MISTAKE_FIELDS)
        if not self.reads_numbers and "answer_from" in entry:
            raise check.error("'answer_from' is only for numeric questions", "answer_from")
        if "answer" not in entry and "answer_from" not in entry:
            raise check.error("a mistake needs 'answer' (or 'answer_from' for numeric)")
        wrong = self._answer(check, entry, options, "answer") if "answer" in entry else None
        problem = None if wrong is None else self.mistake_problem(wrong, key)
        if problem:
            raise check.error(problem, "answer")
        return Mistake(answer=wrong, feedback=nonempty(check, entry, "feedback"))

    def read_key(
        self,
        check: TableCheck,
        table: dict[str, Any],
        options: tuple[str, ...],
        key: str,
        several: bool,
    ) -> Any:
        """The `key` entry of a [[question]] (or its mistake) table in graded form, for kinds
        whose key is written in `answer` (`several`: a key may list more than one)."""
        raise NotImplementedError(f"a {self.kind} question has no 'answer' key")

    def mistake_problem(self, wrong: K, key: K) -> str | None:
        """Why a [[question.mistake]]'s answer (graded form) cannot be one, or None."""
        return "this mistake's answer is the correct answer" if wrong == key else None

    def problems(self, question: Question[K]) -> list[str]:
        """What `attn-tui validate` proves beyond loading (each a line; none: sound)."""
        return []

    # grading and session rules

    def grade(self, question: Question[K], raw: str, read_number: NumberReader) -> Verdict:
        raise NotImplementedError

    def expected_text(self, question: Question[K]) -> str:
        """The key in words, as the verdict says it."""
        raise NotImplementedError

    def max_tries(self, question: Question[K], tries: int) -> int:
        """The tries a question allows, given the quiz's setting."""
        return tries

    def item_order(self, question: Question[K], seed: str | None) -> tuple[int, ...]:
        """Shown position -> the file's item number (of question.options), drawn from `seed`
        (student, pass, question); None: there is no student to shuffle for."""
        return tuple(range(1, len(question.options) + 1))

    def shown(self, question: Question[K], order: tuple[int, ...]) -> Question[K]:
        """The question as shown in `order` (its key and mistakes renumbered)."""
        return question

    def stored_answer(self, raw: str, question: Question[K], order: tuple[int, ...]) -> str:
        """An answer as stored: what it names, never where it was shown."""
        return raw.strip()

    def shown_answer(self, stored: str, question: Question[K], order: tuple[int, ...]) -> str:
        """A stored answer as it would be typed in this order ("" when it cannot be)."""
        return stored

    def as_graded(self, raw: str, question: Question[K], order: tuple[int, ...]) -> str:
        """An answer in the form a repeated try is recognised by."""
        return raw.replace(" ", "")

    def stored_as_graded(self, stored: str, question: Question[K]) -> str:
        """A stored answer (a saved record's) in the form as_graded gives."""
        return self.as_graded(stored, question, ())

    def draft(self, question: Question[K]) -> Draft | None:
        """A fresh answer put together with keys, for kinds answered by arranging rows."""
        return None

    # words

    def plain_answer(self, line: str, question: Question[K]) -> str:
        """A line typed in plain mode as the answer the grader reads."""
        return line

    def key_lines(self, question: Question[K]) -> tuple[str, ...]:
        """Said once the question is closed, after the verdict (the screen's and plain mode's)."""
        return (f"The answer: {self.expected_text(question)}",) if self.typed else ()

    def plain_key_lines(self, question: Question[K]) -> tuple[str, ...]:
        """Plain mode's extra words about the key (beyond key_lines)."""
        return ()

    # LMS export

    def lms_answers(self, question: Question[K]) -> LmsAnswers:
        """The Moodle answer rows of a question whose keys are computed (answers.resolve),
        with the mistakes no row can hold; raises lms.ExportError when Moodle cannot hold
        the question."""
        raise ExportError(self.no_moodle or f"a {self.kind} question has no Moodle answer rows")

    def moodle_fields(self) -> tuple[MoodleField, ...]:
        """Moodle XML elements of this question type beyond the shared ones, in order."""
        return ()

    def moodle_gaps(self, question: Question[K]) -> MoodleGaps:
        """Where Moodle would grade this question unlike the app (keys computed where they
        could be; a key still None is not looked at)."""
        return MoodleGaps()
