"""Text answers in the forms the app accepts, spelled out for Moodle (the text kind's
export: content/kinds/text.py).

Moodle compares a short answer with each of its answers as typed, ignoring only case (and
only the simple case pairs: ß is not "ss") and spaces at the ends. The app first reads the
answer through grading.normalise_text. So each key goes out with the forms of it that
students write and the app accepts, at most MAX_TEXT_VARIANTS per key: lists with and
without spaces, bare or in ( ) or [ ]; indexes as x0, x[0] or x_0; a whole list of
numbered names as a range (x0-x3, x0 - x3, x0..x3, x0...x3, x0 to x3, x0 through x3,
x0–x3, x0…x3, also with the prefix once: x0-3); a single answer with a final full stop;
"ss" also as ß (up to three of them). What stays out is said in docs/teaching.md (Quizzes in
Moodle).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable

from tui_course.content.grading import MAX_RANGE, normalise_text
from tui_course.content.models import Question

MAX_TEXT_VARIANTS = 64
MAX_SHARP_S = 3
_RANGE_MARKS = ("-", " - ", "..", "...", " to ", " through ", "\u2013", "\u2026")
_NUMBERED = re.compile(r"([a-z]*)(\d+)\Z")
_INDEXED_ITEM = re.compile(r"(.*[a-z])(\d+)\Z")


def moodle_fold(text: str) -> str:
    """Roughly what Moodle's comparison cannot tell apart (NFC, ends trimmed, simple case)."""
    return unicodedata.normalize("NFC", text).strip().lower()


def _runs(items: list[str]) -> list[tuple[str, int, int, int]]:
    """(prefix, first number, start, end) of each run of consecutive numbered names."""
    runs: list[tuple[str, int, int, int]] = []
    start = 0
    while start < len(items):
        match = _NUMBERED.match(items[start])
        end = start + 1
        if match:
            prefix, first = match.group(1), int(match.group(2))
            while end < len(items) and items[end] == f"{prefix}{first + end - start}":
                end += 1
            if end - start >= 2:
                runs.append((prefix, first, start, end))
        start = end
    return runs


def _list_forms(items: list[str]) -> tuple[list[str], list[str]]:
    """Surface forms of a normalised list, and what the app accepts beyond them."""
    styles = [items]
    matches = [_INDEXED_ITEM.match(item) for item in items]
    if all(matches):
        parts = [(m.group(1), m.group(2)) for m in matches if m]
        styles += [[f"{a}[{n}]" for a, n in parts], [f"{a}_{n}" for a, n in parts]]
    forms = [
        f"{wrap[:1]}{separator.join(style)}{wrap[1:]}"
        for style in styles
        for separator in (", ", ",")
        for wrap in ("", "()", "[]")
    ]
    beyond: list[str] = []
    for prefix, first, start, end in _runs(items):
        last = first + end - start - 1
        if (start, end) != (0, len(items)) or last - first > MAX_RANGE:
            beyond.append(f"a range for part of the list ({prefix}{first}-{prefix}{last})")
            continue
        for mark in _RANGE_MARKS:
            forms.append(f"{prefix}{first}{mark}{prefix}{last}")
            if prefix:
                forms.append(f"{prefix}{first}{mark}{last}")
    return forms, beyond


def _sharp_s_forms(form: str) -> tuple[list[str], list[str]]:
    pieces = form.split("ss")
    if len(pieces) == 1:
        return [form], []
    if len(pieces) - 1 > MAX_SHARP_S:
        return [form], [f"more than {MAX_SHARP_S} 'ss' that could be typed as ß"]
    forms = []
    for choice in itertools.product(("ss", "\u00df"), repeat=len(pieces) - 1):
        forms.append(pieces[0] + "".join(c + p for c, p in zip(choice, pieces[1:], strict=True)))
    return forms, []


def text_variants(key: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The key first, then the forms the app reads as it (each checked through
    normalise_text), distinct for Moodle; and what the app accepts beyond them."""
    normal = normalise_text(key)
    items = normal.split(",")
    if not normal:  # all punctuation: only the key itself is worth sending
        return (key,), ()
    if len(items) >= 2:
        forms, beyond = _list_forms(items)
    else:
        forms, beyond = [normal, f"{normal}."], []
    variants = [key]
    seen = {moodle_fold(key)}
    for form in forms:
        spelled, too_many = _sharp_s_forms(form)
        beyond += too_many
        for variant in spelled:
            if moodle_fold(variant) in seen or normalise_text(variant) != normal:
                continue
            if len(variants) == MAX_TEXT_VARIANTS:
                return tuple(variants), (*beyond, f"more than {MAX_TEXT_VARIANTS} forms")
            seen.add(moodle_fold(variant))
            variants.append(variant)
    return tuple(variants), tuple(dict.fromkeys(beyond))


def text_keys(question: Question) -> tuple[str, ...]:
    """Every text answer Moodle is given as right: each key, then its variants."""
    return all_variants(question.answer)


def all_variants(keys: Iterable[str]) -> tuple[str, ...]:
    """The keys as listed, then every form of each that Moodle must also be given."""
    out: dict[str, None] = {}
    for key in keys:
        out.update(dict.fromkeys(text_variants(str(key))[0]))
    # The listed keys first: Moodle shows the first right answer as "the correct answer".
    listed = [str(key) for key in keys]
    return tuple(dict.fromkeys([*listed, *out]))


def forms_left_out(keys: Iterable[str]) -> tuple[str, ...]:
    """Why answers the app reads as one of the keys are not among the forms Moodle gets."""
    return tuple(dict.fromkeys(why for key in keys for why in text_variants(str(key))[1]))
