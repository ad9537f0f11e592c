"""What a question kind tells the LMS writers (classroom/gift, classroom/moodle_xml).

A kind lays out its own Moodle answer rows (QuestionKind.lms_answers), names the elements
its Moodle XML question type adds (moodle_fields) and says where Moodle grades it
differently (moodle_gaps); the writers only turn these into GIFT or XML, by the row's form.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tui_course.content.models import Mistake


class ExportError(ValueError):
    """A question that cannot be written in the chosen format, said in one line."""


class LmsForm(StrEnum):
    """How a kind's answer rows are written, as Moodle compares them."""

    SHOWN = "shown"  # an option or line shown as the app has it: escaped HTML
    TYPED = "typed"  # compared with what the student types, as typed: plain text
    NUMBER = "number"  # a number, graded within the row's tolerance


@dataclass(frozen=True)
class LmsRow:
    """One answer row as Moodle stores it: its text, the value Moodle keeps in `fraction`
    (a grade in percent; an ordering question's position), feedback, and for a number its
    absolute tolerance."""

    text: str
    value: float
    feedback: str = ""
    tolerance: float = 0.0


@dataclass(frozen=True)
class LmsAnswers:
    """A question's answer rows, and the mistakes no row can hold (GIFT carries those in
    its comment for `attn-tui import`; Moodle does not grade them)."""

    rows: tuple[LmsRow, ...]
    unplaced: tuple[Mistake, ...] = ()


@dataclass(frozen=True)
class MoodleField:
    """One element a Moodle XML question type adds to the shared ones: a plain value, or
    (`html`) a text element in HTML format; written before the answer rows unless
    `after_answers`."""

    tag: str
    value: str
    html: bool = False
    after_answers: bool = False


@dataclass(frozen=True)
class MoodleGaps:
    """Where Moodle would grade a question unlike the app: keys it cannot grade as the app
    does (the export refuses them), and why answers the app accepts are wrong there (the
    export says so)."""

    refused: tuple[str, ...] = ()
    marked_wrong: tuple[str, ...] = ()
