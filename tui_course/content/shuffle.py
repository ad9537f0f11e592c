"""Options shown in an order of their own for each student and each pass.

A pass keeps one order (resuming it shows the same), a retry or review pass gets a new
one, and pressing 1 every time no longer follows the file's order. The key and the
targeted mistakes are mapped to the shown numbers (by the options kinds, with
`shown_numbers`); what is stored names the option
itself (`option_id`, from its text), never the position it happened to be shown at.
Pure: the session calls it, the quiz view only draws the question it is given.
"""

from __future__ import annotations

from tui_course.content.models import Question

ID_PREFIX = "o:"


def option_id(text: str) -> str:
    """A short stable name for an option: the same text is the same option, wherever shown."""
    import hashlib  # imported on first use: a returning student's summary draws no option

    return ID_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def option_order(seed: str, count: int) -> tuple[int, ...]:
    """Shown position (0-based) -> the file's option number (1-based), drawn from `seed`."""
    import hashlib
    import random

    numbers = list(range(1, count + 1))
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(numbers)
    return tuple(numbers)


def shown_numbers(order: tuple[int, ...]) -> dict[int, int]:
    """The file's option number -> its shown number."""
    return {file_number: shown for shown, file_number in enumerate(order, start=1)}


def stored_answer(raw: str, question: Question, order: tuple[int, ...]) -> str:
    """Shown option numbers ("3" or "1,4") as the options' ids, in the file's order."""
    picked = sorted(order[int(part) - 1] for part in raw.replace(" ", "").split(",") if part)
    return ",".join(option_id(question.options[number - 1]) for number in picked)


def shown_answer(stored: str, question: Question, order: tuple[int, ...]) -> str:
    """A stored answer as shown numbers for this order; "" when an option is gone.

    Plain numbers (rows saved before options were shuffled) are the file's numbers."""
    where = shown_numbers(order)
    ids = {option_id(text): number for number, text in enumerate(question.options, start=1)}
    shown = []
    for part in (p for p in stored.replace(" ", "").split(",") if p):
        number = (
            ids.get(part) if part.startswith(ID_PREFIX) else int(part) if part.isdigit() else None
        )
        if number is None or number not in where:
            return ""
        shown.append(where[number])
    return ",".join(str(number) for number in sorted(shown))
