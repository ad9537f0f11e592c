"""Grade an answer typed or picked by the student against a question's key.

Answers arrive as the strings the UI collects ("2", "1,3", "0.17", "the animal")
and are stored in that form, so a saved attempt can always be re-graded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from tui_course.content.models import NumericSpec, Question


class AnswerFormatError(ValueError):
    """The answer cannot be read (not a number, no option picked): ask again, record nothing."""


class AmbiguousNumber(AnswerFormatError):
    """'14,049' is 14049 to one student and 14.049 to another: ask which, never guess."""


@dataclass(frozen=True)
class Verdict:
    correct: bool
    expected: str  # the key, shown only once the question is closed
    feedback: str | None = None  # targeted feedback when a known mistake matched
    read_as: float | None = None  # numeric: the number the answer was read as


NumberReader = Callable[[str], float]

_SPACES = re.compile(r"\s+")
_EDGE_PUNCTUATION = " .,;:!?\"'`"
_INDEXED = re.compile(r"([a-z])\s*(?:\[\s*(\d+)\s*\]|_(\d+))")
_BRACKETS = str.maketrans("[{", "((") | str.maketrans("]}", "))")
_SPACE_AT_PUNCTUATION = re.compile(r"\s*([,;()])\s*")
_RANGE = re.compile(
    r"(?<![\w.\-])([a-z]*)(\d+)"
    r"(?:\s*(?:-|\u2013|\u2014|\.\.\.?|\u2026)\s*|\s+(?:to|through)\s+)"
    r"\1?(\d+)(?![\w.\-])"
)
MAX_RANGE = 64  # a longer "range" is more likely a subtraction than a list


def _expand_range(match: re.Match[str]) -> str:
    prefix, first, last = match.group(1), int(match.group(2)), int(match.group(3))
    if not 0 < last - first <= MAX_RANGE:
        return match.group(0)
    return ",".join(f"{prefix}{number}" for number in range(first, last + 1))


def normalise_text(text: str) -> str:
    """The one normalisation every text answer and key goes through, in this order:

    1. case is ignored (casefold);
    2. an index written x[0] or x_0 is x0;
    3. bracket style is ignored: [ ] and { } read as ( );
    4. runs of spaces are one space, and spaces next to , ; ( ) are dropped;
    5. punctuation and spaces at either end are dropped, and so are brackets around the
       whole answer: "[x0, x1, x2, x3]" and "(2, 10, 256)" are the lists inside;
    6. a range of up to 64 numbered names, x0-x3, x0..x3, x0 to x3 (or 0-3), is the
       list x0,x1,x2,x3.
    So "X[0], x[1], x[2], x[3]", "x0 - x3" and "x0..x3" all read as "x0,x1,x2,x3".
    """
    folded = _INDEXED.sub(lambda m: m.group(1) + (m.group(2) or m.group(3)), text.casefold())
    spaced = _SPACES.sub(" ", folded.translate(_BRACKETS))
    tight = _unwrap(_SPACE_AT_PUNCTUATION.sub(r"\1", spaced))
    return _RANGE.sub(_expand_range, tight)


def _unwrap(text: str) -> str:
    """Drop edge punctuation and brackets that enclose the whole answer, until none is left."""
    while True:
        text = text.strip(_EDGE_PUNCTUATION)
        if not (text.startswith("(") and text.endswith(")") and _closes_at_end(text)):
            return text
        text = text[1:-1]


def _closes_at_end(text: str) -> bool:
    """The bracket opening the text is the one closing it: "(a)" yes, "(a)(b)" no."""
    depth = 0
    for position, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return position == len(text) - 1
    return False


def matches_text(answer: str, variants: Iterable[str]) -> bool:
    return normalise_text(answer) in {normalise_text(v) for v in variants}


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def other_form(raw: str, question: Question[tuple[str, ...]]) -> str | None:
    """The form to write a text answer in, when it holds the same numbers, in the same order,
    as the key or a known mistake but is written another way ("2 x 10 x 256" for
    "(2, 10, 256)"): the key's shape with letters for its numbers, "(a, b, c)". Else None."""
    numbers = _NUMBER.findall(raw)
    variants = [*question.answer, *(v for m in question.mistakes for v in m.answer)]
    for variant in variants:
        wanted = _NUMBER.findall(str(variant))
        if len(wanted) >= 2 and numbers == wanted:
            between = _NUMBER.split(str(question.answer[0]))  # the text around its numbers
            return between[0] + "".join(
                letter + text for letter, text in zip(_LETTERS, between[1:], strict=False)
            )
    return None


_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+\Z")
# 1,000 or 14,049: a thousands separator or a decimal comma; 1,000,000 can only be the first.
_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(?:,\d{3})+\Z")
NOT_FINITE = "Type a finite number."


def parse_number(raw: str) -> float:
    """A decimal (point or comma: 0,67), scientific or a/b fraction; a trailing % divides
    by 100. A comma is a decimal comma only when it is the number's one separator, and
    not three digits after a whole number (1,000 is refused as ambiguous; 1,000,000 is a
    million)."""
    text = raw.strip().replace(" ", "")
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    if _THOUSANDS.match(text):
        whole = text.replace(",", "")
        if text.count(",") == 1:
            point = text.replace(",", ".")
            raise AmbiguousNumber(
                f"{text} could mean {whole} or {point}: type {whole} or {point} (no comma)."
            )
        text = whole
    elif _DECIMAL_COMMA.match(text):
        text = text.replace(",", ".")
    try:
        value = float(Fraction(text)) if "/" in text else float(text)
    except (ValueError, ZeroDivisionError, OverflowError):  # 10**4000/3 overflows a float
        raise AnswerFormatError("Type a number, for example 0.25, 0,25, -1.5 or 1/4.") from None
    if not math.isfinite(value):
        raise AnswerFormatError(NOT_FINITE)
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


def numbers_close(value: float, key: float, spec: NumericSpec) -> bool:
    if spec.exact:
        return math.isclose(value, key, rel_tol=1e-9, abs_tol=1e-12)
    return abs(value - key) <= spec.margin(key)


def format_number(value: float, spec: NumericSpec) -> str:
    """Show a number to the precision its tolerance asks for."""
    if spec.tolerance > 0:
        decimals = max(0, math.ceil(-math.log10(spec.tolerance)))
        return f"{value:.{decimals}f}"
    return f"{value:.6g}"


def _numeric_key(question: Question[float | None]) -> float:
    if question.answer is None:
        raise ValueError("numeric key not resolved: pass the question through answers.resolve")
    return float(question.answer)


def numeric_keys(question: Question[float | None]) -> tuple[float, ...]:
    """The key first, then any other reading the quiz also accepts."""
    return (_numeric_key(question), *question.numeric_spec.also_accepted)
