"""Put lines in order (a Parsons problem): lines of code, or the steps of a method.

The file lists `lines` in the right order: that order is the key. Each student sees them
in an order of their own (never the key's), moves them with the number keys (or types the
order in plain mode, "3 1 2 4": the shown numbers from top to bottom), and is graded by
position, told which line belongs where the first misplaced one stands. A line's leading
indentation is part of it and is shown.

In the Question: `options` holds the lines in the key's order, `answer` the file's line
numbers in the right order (1, 2, ... n; as shown, the shown numbers in the right order),
a mistake's `answer` a wrong order of the file's line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tui_course.content.grading import AnswerFormatError, NumberReader, Verdict
from tui_course.content.kinds.base import QuestionKind, Row
from tui_course.content.kinds.lms import LmsAnswers, LmsForm, LmsRow, MoodleField
from tui_course.content.models import Kind, Mistake, Question
from tui_course.content.tomlfile import Field, TableCheck

MIN_LINES = 3  # two lines have one wrong order: a coin toss, not a Parsons problem
MAX_LINES = 9  # picked with the keys 1-9
MAX_LINE_CHARS = 200
ID_PREFIX = "l:"

FIELDS = {
    "kind": Field((str,), "order", required=True),
    "prompt": Field((str,), "a string", required=True),
    "explanation": Field((str,), "a string", required=True),
    "lines": Field((list,), "the lines in the right order", required=True, items=str),
    "hints": Field((list,), "a list of strings", items=str),
    "tries": Field((int,), "a whole number of tries, 1 to 9"),
    "mistake": Field((list,), "[[question.mistake]] tables", items=dict),
}
MISTAKE_FIELDS = {
    "answer": Field((list,), "a wrong order of the line numbers (1 = the first line)", items=int),
    "feedback": Field((str,), "a string", required=True),
}


def order_help(count: int) -> str:
    example = " ".join(str(n) for n in (*range(2, count + 1), 1))
    return (
        f"Type the line numbers 1 to {count} in the order the lines belong, each once"
        f" (for example {example})."
    )


def read_order(raw: str, count: int) -> tuple[int, ...]:
    """'3 1 2 4' (or '3,1,2,4') as shown numbers top to bottom; AnswerFormatError unless it
    is each of 1..count once."""
    parts = [part for part in re.split(r"[\s,;]+", raw.strip()) if part]
    if not all(part.isdigit() for part in parts):
        raise AnswerFormatError(order_help(count))
    numbers = tuple(int(part) for part in parts)
    if sorted(numbers) != list(range(1, count + 1)):
        raise AnswerFormatError(order_help(count))
    return numbers


def line_id(text: str) -> str:
    """A short stable name for a line (its text, indentation included), as stored."""
    import hashlib

    return ID_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _quoted(text: str) -> str:
    short = text.strip().rstrip(".")
    return f'"{short[:57]}..."' if len(short) > 60 else f'"{short}"'


@dataclass(frozen=True)
class OrderDraft:
    """The lines as the student has arranged them so far: `arranged` holds shown line
    numbers top to bottom; `picked` is the position (1-based) of the line being moved."""

    arranged: tuple[int, ...]
    cursor: int = 1
    picked: int | None = None
    moved: bool = False  # as first shown, the order is never right: nothing to check yet

    def press(self, number: int) -> OrderDraft | None:
        """The first number picks the line at that position, the second puts it there;
        the same number twice puts it back down."""
        if not 1 <= number <= len(self.arranged):
            return None
        if self.picked is None:
            return replace(self, picked=number, cursor=number)
        if self.picked == number:
            return replace(self, picked=None, cursor=number)
        lines = list(self.arranged)
        line = lines.pop(self.picked - 1)
        lines.insert(number - 1, line)
        return OrderDraft(tuple(lines), cursor=number, picked=None, moved=True)

    def step(self, step: int, carry: bool) -> OrderDraft:
        """Up/Down moves the highlight; with `carry` the line picked (else the highlighted
        one) moves one place and stays picked. The ends stop it."""
        count = len(self.arranged)
        if not carry:
            return replace(self, cursor=min(max(self.cursor + step, 1), count))
        where = self.picked or self.cursor
        to = min(max(where + step, 1), count)
        if to == where:
            return replace(self, picked=where, cursor=where)
        lines = list(self.arranged)
        lines[where - 1], lines[to - 1] = lines[to - 1], lines[where - 1]
        return OrderDraft(tuple(lines), cursor=to, picked=to, moved=True)

    def raw(self) -> str:
        """The order top to bottom; "" until a line has moved (Enter then asks for a move
        and costs no try)."""
        return " ".join(str(number) for number in self.arranged) if self.moved else ""

    def rows(self, question: Question[tuple[int, ...]], closed: bool) -> tuple[Row, ...]:
        rows = []
        for position, number in enumerate(self.arranged, start=1):
            pointer = ">" if position == self.cursor and not closed else " "
            mark = "*" if position == self.picked and not closed else " "
            text = question.options[number - 1]
            if closed:
                belongs = question.answer.index(number) + 1
                text += "  <- right place" if belongs == position else f"  <- belongs at {belongs}"
            rows.append(Row(f"{pointer} {position}.{mark} ", text, position == self.picked))
        return tuple(rows)


class OrderKind(QuestionKind[tuple[int, ...]]):
    kind = Kind.ORDER
    screen_keys = "1-9 pick a line, 1-9 again puts it there (or shift+Up/Down), Enter"
    plain_prompt = "Type the line numbers in the right order, e.g. 3 1 2"
    empty_answer = "Put the lines in order first (1-9 picks a line, 1-9 again puts it)."
    moodle_type = "ordering"  # qtype_ordering, core Moodle since 4.4
    lms_form = LmsForm.SHOWN
    no_gift = "GIFT has no ordering question (export them with --format moodle-xml)"

    # reading the file

    def parse(
        self, table: dict[str, Any], check: TableCheck, quiz_dir: Path | None
    ) -> Question[tuple[int, ...]]:
        from tui_course.content.question_fields import nonempty, tries_of

        check.check(table, FIELDS)
        lines = tuple(line.rstrip() for line in table["lines"])
        problem = lines_problem(lines)
        if problem:
            raise check.error(problem, "lines")
        mistakes = []
        for index, entry in enumerate(table.get("mistake", [])):
            mistake_check = check.entry("mistake", index)
            mistakes.append(_mistake(mistake_check, entry, len(lines)))
        return Question(
            kind=self.kind,
            prompt=nonempty(check, table, "prompt"),
            explanation=nonempty(check, table, "explanation"),
            line=check.lines.line_of(check.path) or 1,
            options=lines,
            answer=tuple(range(1, len(lines) + 1)),
            hints=tuple(hint.strip() for hint in table.get("hints", [])),
            mistakes=tuple(mistakes),
            tries=tries_of(check, table),
        )

    def problems(self, question: Question[tuple[int, ...]]) -> list[str]:
        """The key proved: the lines are fit to order, and no student starts from it."""
        found = [p for p in [lines_problem(question.options)] if p]
        if self.item_order(question, None) == question.answer:
            found.append("the lines are shown in their right order: nothing to put in order")
        return found

    # grading and session rules

    def grade(
        self, question: Question[tuple[int, ...]], raw: str, read_number: NumberReader
    ) -> Verdict:
        arranged = read_order(raw, len(question.options))
        key = question.answer
        expected = self.expected_text(question)
        if arranged == key:
            return Verdict(True, expected)
        mistake = next((m.feedback for m in question.mistakes if m.answer == arranged), None)
        return Verdict(False, expected, mistake or first_misplaced(question, arranged))

    def expected_text(self, question: Question[tuple[int, ...]]) -> str:
        return " ".join(str(number) for number in question.answer)

    def item_order(self, question: Question[tuple[int, ...]], seed: str | None) -> tuple[int, ...]:
        """The student's order, never the key: with no student, one drawn from the lines."""
        from tui_course.content.shuffle import option_order

        count = len(question.options)
        order = option_order(seed if seed is not None else "\n".join(question.options), count)
        if order == tuple(range(1, count + 1)):
            order = (*order[1:], order[0])  # a draw that is the key: one place round
        return order

    def shown(
        self, question: Question[tuple[int, ...]], order: tuple[int, ...]
    ) -> Question[tuple[int, ...]]:
        where = {file_number: shown for shown, file_number in enumerate(order, start=1)}
        return replace(
            question,
            options=tuple(question.options[number - 1] for number in order),
            answer=tuple(where[number] for number in question.answer),
            mistakes=tuple(
                Mistake(tuple(where[n] for n in m.answer), m.feedback) for m in question.mistakes
            ),
        )

    def stored_answer(
        self, raw: str, question: Question[tuple[int, ...]], order: tuple[int, ...]
    ) -> str:
        """The lines' ids, top to bottom: the same order whatever the shuffle showed."""
        shown = read_order(raw, len(order))
        return ",".join(line_id(question.options[order[number - 1] - 1]) for number in shown)

    def shown_answer(
        self, stored: str, question: Question[tuple[int, ...]], order: tuple[int, ...]
    ) -> str:
        where = {file_number: shown for shown, file_number in enumerate(order, start=1)}
        ids = {line_id(text): number for number, text in enumerate(question.options, start=1)}
        shown = []
        for part in stored.split(","):
            number = ids.get(part)
            if number is None:
                return ""
            shown.append(str(where[number]))
        return " ".join(shown)

    def as_graded(
        self, raw: str, question: Question[tuple[int, ...]], order: tuple[int, ...]
    ) -> str:
        return self.stored_answer(raw, question, order)

    def stored_as_graded(self, stored: str, question: Question[tuple[int, ...]]) -> str:
        return stored

    def draft(self, question: Question[tuple[int, ...]]) -> OrderDraft:
        return OrderDraft(tuple(range(1, len(question.options) + 1)))

    # words

    def plain_answer(self, line: str, question: Question[tuple[int, ...]]) -> str:
        read_order(line, len(question.options))  # a one-line help when it is not an order
        return line

    def key_lines(self, question: Question[tuple[int, ...]]) -> tuple[str, ...]:
        return ("The right order:", *(question.options[n - 1] for n in question.answer))

    # LMS export

    def lms_answers(self, question: Question[tuple[int, ...]]) -> LmsAnswers:
        """Moodle's ordering question lists the items in the right order, each with its
        position where other types keep a grade; leading spaces as no-break spaces, so
        HTML keeps the indentation. Its rows hold no mistake: they are carried, not graded."""
        rows = tuple(
            LmsRow(_kept_indent(question.options[number - 1]), float(position))
            for position, number in enumerate(question.answer, start=1)
        )
        return LmsAnswers(rows, question.mistakes)

    def moodle_fields(self) -> tuple[MoodleField, ...]:
        # All lines, one column, graded all or nothing by position as the app grades it.
        return tuple(
            MoodleField(tag, value)
            for tag, value in (
                ("layouttype", "VERTICAL"),
                ("selecttype", "ALL"),
                ("selectcount", "0"),
                ("gradingtype", "ALL_OR_NOTHING"),
                ("showgrading", "SHOW"),
                ("numberingstyle", "none"),
            )
        )


def _kept_indent(line: str) -> str:
    body = line.lstrip(" ")
    return "\u00a0" * (len(line) - len(body)) + body


def first_misplaced(question: Question[tuple[int, ...]], arranged: tuple[int, ...]) -> str:
    """Feedback on the first position out of place: which line belongs there instead."""
    key = question.answer
    for position, (given, wanted) in enumerate(zip(arranged, key, strict=True), start=1):
        if given != wanted:
            there = _quoted(question.options[given - 1])
            belongs = _quoted(question.options[wanted - 1])
            if position == 1:
                return f"{belongs} comes first, before {there}."
            placed = "The first line is" if position == 2 else f"The first {position - 1} lines are"
            return f"{placed} in place; then {belongs} should come before {there}."
    return ""


def lines_problem(lines: tuple[str, ...]) -> str | None:
    """Why these lines cannot be a key, or None."""
    if not MIN_LINES <= len(lines) <= MAX_LINES:
        return f"needs between {MIN_LINES} and {MAX_LINES} lines, got {len(lines)}"
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            return f"line {number} is empty"
        if len(line) > MAX_LINE_CHARS:
            return f"line {number} is longer than {MAX_LINE_CHARS} characters"
        if "\n" in line:
            return f"line {number} holds a line break: one line each"
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if line in seen:
            return f"line {number} is the same as line {seen[line]}: the order would be ambiguous"
        seen[line] = number
    return None


def _mistake(check: TableCheck, entry: dict[str, Any], count: int) -> Mistake[tuple[int, ...]]:
    check.check(entry, MISTAKE_FIELDS)
    if "answer" not in entry:
        raise check.error("a mistake needs 'answer' (the wrong order, as line numbers)")
    numbers = tuple(entry["answer"])
    if sorted(numbers) != list(range(1, count + 1)) or any(isinstance(n, bool) for n in numbers):
        raise check.error(f"'answer' must name each line 1 to {count} once", "answer")
    if numbers == tuple(range(1, count + 1)):
        raise check.error("this mistake's answer is the correct answer", "answer")
    from tui_course.content.question_fields import nonempty

    return Mistake(answer=numbers, feedback=nonempty(check, entry, "feedback"))


KIND = OrderKind()
