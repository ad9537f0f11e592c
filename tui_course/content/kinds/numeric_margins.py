"""The margins that make Moodle's numerical question accept what the app accepts (the
numeric kind's export: content/kinds/numeric.py), and the keys Moodle cannot hold."""

from __future__ import annotations

from tui_course.content.models import NumericSpec


def exact_tolerance(key: float) -> float:
    """The margin the app grades a key of tolerance 0 with (grading.numbers_close: relative
    1e-9, at least 1e-12), written out because Moodle's own margin is about 1e-14."""
    return max(1e-9 * abs(key), 1e-12)


def moodle_tolerance(spec: NumericSpec, key: float) -> float:
    """The absolute tolerance Moodle is given, so it accepts what the app accepts."""
    return spec.margin(key) or exact_tolerance(key)


# Moodle keeps a numerical key to PHP's 14 significant digits (precision = 14).
MOODLE_DIGITS = 14


def moodle_number_problem(key: float, tolerance: float) -> str | None:
    """Why Moodle cannot grade this key like the app, or None.

    Moodle rounds the key to 14 significant digits; when that moves it by more than half the
    margin, answers the app calls right (the key itself, at worst) are wrong in Moodle.
    """
    stored = float(f"{key:.{MOODLE_DIGITS}g}")
    if abs(stored - key) > tolerance / 2:
        return (
            f"Moodle keeps {MOODLE_DIGITS} significant digits: the key {number_text(key)} becomes"
            f" {number_text(stored)}, outside half its tolerance {number_text(tolerance)};"
            " round the key or give a larger tolerance"
        )
    return None


def number_text(value: float) -> str:
    """Shortest text that reads back as the same float (Python's repr)."""
    return repr(float(value))
