"""Grade an answer typed or picked by the student against a question's key.

Answers arrive as the strings the UI collects ("2", "1,3", "0.17", "the animal")
and are stored in that form, so a saved attempt can always be re-graded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tui_course.content.models import Kind, Question


class AnswerFormatError(ValueError):
    """The answer cannot be read (not a number, no option picked): ask again, record nothing."""


@dataclass(frozen=True)
class Verdict:
    correct: bool
    expected: str  # the key, as shown to the student after answering
    feedback: str | None = None  # targeted feedback when a known mistake matched


_SPACES = re.compile(r"\s+")
_EDGE_PUNCTUATION = " .,;:!?\"'`"


def normalise_text(text: str) -> str:
    """Case, spacing and surrounding punctuation do not change a text answer."""
    return _SPACES.sub(" ", text.casefold()).strip(_EDGE_PUNCTUATION)


def matches_text(answer: str, variants: Any) -> bool:
    return normalise_text(answer) in {normalise_text(v) for v in variants}


def parse_number(raw: str) -> float:
    """A decimal, scientific or a/b fraction; a trailing % divides by 100."""
    text = raw.strip().replace(" ", "")
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    try:
        value = float(Fraction(text)) if "/" in text else float(text)
    except (ValueError, ZeroDivisionError, OverflowError):  # 10**4000/3 overflows a float
        raise AnswerFormatError("Type a number, for example 0.25, -1.5 or 1/4.") from None
    if not math.isfinite(value):
        raise AnswerFormatError("Type a finite number.")
    return value * scale


def parse_options(raw: str, count: int) -> frozenset[int]:
    try:
        picked = frozenset(int(part) for part in raw.replace(" ", "").split(",") if part)
    except ValueError:
        raise AnswerFormatError("Pick options by their numbers.") from None
    if not picked:
        raise AnswerFormatError("Pick an option first (keys 1-9).")
    if any(not 1 <= number <= count for number in picked):
        raise AnswerFormatError(f"Options are numbered 1 to {count}.")
    return picked


def numbers_close(value: float, key: float, question: Question) -> bool:
    if question.tolerance == 0 and question.rel_tolerance == 0:
        return math.isclose(value, key, rel_tol=1e-9, abs_tol=1e-12)
    return abs(value - key) <= max(question.tolerance, question.rel_tolerance * abs(key))


def format_number(value: float, question: Question) -> str:
    """Show a number to the precision its tolerance asks for."""
    if question.tolerance > 0:
        decimals = max(0, math.ceil(-math.log10(question.tolerance)))
        return f"{value:.{decimals}f}"
    return f"{value:.6g}"


def expected_text(question: Question) -> str:
    if question.kind is Kind.CHOICE:
        return f"{question.answer}. {question.options[question.answer - 1]}"
    if question.kind is Kind.MULTI:
        return "; ".join(f"{n}. {question.options[n - 1]}" for n in sorted(question.answer))
    if question.kind is Kind.NUMERIC:
        return format_number(_numeric_key(question), question)
    return str(question.answer[0])


def _numeric_key(question: Question) -> float:
    if question.answer is None:
        raise ValueError("numeric key not resolved: pass the question through answers.resolve")
    return float(question.answer)


def grade(question: Question, raw: str) -> Verdict:
    """Verdict for one answer; raises AnswerFormatError when the input is unreadable."""
    if not raw.strip():
        raise AnswerFormatError(
            "Pick an option first (keys 1-9)."
            if question.kind in (Kind.CHOICE, Kind.MULTI)
            else "Type an answer, then press Enter."
        )
    expected = expected_text(question)
    if question.kind in (Kind.CHOICE, Kind.MULTI):
        picked = parse_options(raw, len(question.options))
        if question.kind is Kind.CHOICE:
            if len(picked) != 1:
                raise AnswerFormatError("Pick exactly one option.")
            value: Any = next(iter(picked))
        else:
            value = picked
        correct = value == question.answer
        feedback = next((m.feedback for m in question.mistakes if m.answer == value), None)
    elif question.kind is Kind.NUMERIC:
        number = parse_number(raw)
        correct = numbers_close(number, _numeric_key(question), question)
        feedback = next(
            (
                m.feedback
                for m in question.mistakes
                if m.answer is not None and numbers_close(number, float(m.answer), question)
            ),
            None,
        )
    else:
        correct = matches_text(raw, question.answer)
        feedback = next(
            (m.feedback for m in question.mistakes if matches_text(raw, m.answer)), None
        )
    return Verdict(correct=correct, expected=expected, feedback=None if correct else feedback)
