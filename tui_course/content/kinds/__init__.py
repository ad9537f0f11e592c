"""One module per question kind, registered here (the shape of tui_course.commands).

Each module under tui_course.content.kinds holds all a kind is: the TOML keys it takes
and how they are read and proved, how an answer is graded and what a try counts as, how
its items are shown in an order of their own per student, the words for the quiz screen
and plain mode, and its LMS export (or why it has none). Everything else asks the kind
through `kind_of` instead of testing `question.kind`. A module is imported on first use,
so a quiz without code questions never imports the code kind.

Adding a kind is one module (a QuestionKind generic in its key's type, so mypy checks
the module's use of `question.answer`), its member in models.Kind, and one line below;
mypy then names each `match` on Kind (each ends in assert_never) that must say what the
new kind does there.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from tui_course.content.grading import AnswerFormatError, NumberReader, Verdict, parse_number
from tui_course.content.models import DEFAULT_TRIES, Kind, Question, Quiz

if TYPE_CHECKING:
    from tui_course.content.kinds.base import QuestionKind

# The kind as the TOML file names it -> the module under tui_course.content.kinds.
KINDS = {
    Kind.CHOICE: "choice",
    Kind.MULTI: "multi",
    Kind.NUMERIC: "numeric",
    Kind.TEXT: "text",
    Kind.CODE: "code",
    Kind.ORDER: "order",
}


@cache
def kind_of(kind: Kind) -> QuestionKind:
    """The module's kind object for `kind` (each module defines `KIND`)."""
    module = importlib.import_module(f"{__name__}.{KINDS[kind]}")
    found: QuestionKind = module.KIND
    assert found.kind is kind, (found.kind, kind)
    return found


def of(question: Question) -> QuestionKind:
    """The kind object a question belongs to."""
    return kind_of(question.kind)


def names() -> str:
    """The kinds a quiz may use, for error messages: "choice, multi, ..."."""
    return ", ".join(str(kind) for kind in KINDS)


def tries_allowed(quiz: Quiz, question: Question) -> int:
    """How many answers a question takes before its key is shown (a kind may allow fewer:
    single choice never allows trying every option)."""
    tries = question.tries or quiz.tries or DEFAULT_TRIES
    return max(1, of(question).max_tries(question, tries))


def grade(question: Question, raw: str, read_number: NumberReader = parse_number) -> Verdict:
    """Verdict for one answer, by its kind; raises AnswerFormatError when the input is
    unreadable.

    `read_number` turns a typed numeric answer into a number; the app passes one that also
    reads small expressions (tui_course.answers.read_number), which needs NumPy.
    """
    kind = of(question)
    if not raw.strip():
        raise AnswerFormatError(kind.empty_answer)
    return kind.grade(question, raw, read_number)
