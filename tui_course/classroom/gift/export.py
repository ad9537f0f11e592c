"""Quizzes to Moodle's GIFT, as Moodle's own reader (question/format/gift) takes them back.

Every prompt, option and feedback goes out as `[html]` built by lms_answers (the Moodle XML
writer's HTML), never as `[markdown]`: Moodle's GIFT Markdown (Markdown Extra) passes raw
HTML and any link scheme through, and Moodle shows question text uncleaned.

GIFT has no syntax for hints (and the app's other per-question fields), and HTML cannot be
read back into the author's Markdown, so those travel in a `// attn-tui: {...}` comment
line before the question: Moodle ignores it and `attn-tui import` (gift/parse.py) restores
them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, assert_never

from tui_course.classroom.gift.syntax import (
    EXACT_ENTRY,
    MARKDOWN_ENTRY,
    QUESTION_META,
    QUIZ_HEADER_FIELDS,
    QUIZ_META,
    escape,
)
from tui_course.classroom.lms_answers import (
    CARRIED_FIELDS,
    ExportError,
    MoodleQuestion,
    explanation_notes,
    percent_text,
    plain_html,
    prompt_notes,
    quiz_questions,
    safe_html,
    with_notes,
)
from tui_course.content import kinds
from tui_course.content.kinds.lms import LmsForm, LmsRow
from tui_course.content.kinds.numeric_margins import number_text
from tui_course.content.models import Question, Quiz

_MOODLE_PLACEHOLDER = re.compile(r"&&(?:058;|035;|061;|123;|125;|126;|092;|010)")


def _html_field(html: str) -> str:
    """HTML (built by lms_answers, never taken from the text) as a GIFT field."""
    return f"[html]{escape(html)}"


def _text(markdown: str, notes: Sequence[str] = ()) -> str:
    """A Markdown field (prompt, feedback): Moodle gets the writers' safe HTML, not Markdown."""
    return _html_field(with_notes(safe_html(markdown), notes))


def _option(text: str) -> str:
    """An option: plain text in the app, so escaped plain text in Moodle."""
    return _html_field(plain_html(text))


def _plain_answer(text: str) -> str:
    """A short-answer key: compared as typed, so no entities; Moodle's `*` wildcard escaped."""
    if _MOODLE_PLACEHOLDER.search(text):
        raise ExportError(f"the text answer {text!r} holds a sequence Moodle's reader rewrites")
    body = escape(text.replace("*", "\\*"))
    # A leading [html] would be taken as a format tag (Moodle drops it from a short answer).
    return f"[plain]{body}" if body.startswith(("[", "%")) else body


def _json(value: Any) -> str:
    """JSON on one ASCII line, [ ] in strings escaped (Moodle reads [tag:...] in comments)."""
    if isinstance(value, str):
        return json.dumps(value).replace("[", "\\u005b").replace("]", "\\u005d")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(k)}: {_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_json(item) for item in value) + "]"
    return json.dumps(value)


def export_gift(quizzes: Sequence[Quiz]) -> str:
    """GIFT for the quizzes, each in its own Moodle category (attn-tui/<quiz id>)."""
    blocks = []
    for quiz in quizzes:
        header = {
            name: getattr(quiz, name)
            for name in QUIZ_HEADER_FIELDS
            if getattr(quiz, name, None) not in (None, "")
        }
        blocks.append(f"{QUIZ_META} {_json(header)}\n$CATEGORY: $course$/top/attn-tui/{quiz.id}")
        for number, question, moodle in quiz_questions(quiz):
            try:
                blocks.append(_question_block(quiz, number, question, moodle))
            except ExportError as error:
                where = f"{quiz.path}:{question.line}: question {number}"
                raise ExportError(f"{where}: {error}") from None
    # Inside the first category's block: a block of comments alone is no question to Moodle.
    intro = (
        "// GIFT written by attn-tui. Lines starting with '// attn-tui' keep what GIFT has\n"
        "// no syntax for (hints, the Markdown behind the HTML); Moodle ignores them,\n"
        "// `attn-tui import` reads them.\n"
    )
    return intro + "\n\n".join(blocks) + "\n"


def _carried(question: Question, moodle: MoodleQuestion) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for name in CARRIED_FIELDS:
        value = getattr(question, name, None)
        if value not in (None, (), [], ""):
            meta[name] = list(value) if isinstance(value, tuple) else value
    if moodle.unplaced:
        meta["mistakes"] = [
            {"answer": sorted(m.answer), "feedback": m.feedback} for m in moodle.unplaced
        ]
    if kinds.of(question).reads_numbers and question.numeric_spec.exact:
        meta[EXACT_ENTRY] = True  # the tolerance written is numeric_margins.exact_tolerance
    meta[MARKDOWN_ENTRY] = {
        "prompt": moodle.prompt,
        "explanation": moodle.explanation,
        "feedback": [answer.feedback or None for answer in moodle.answers],
    }
    return meta


def _question_block(quiz: Quiz, number: int, question: Question, moodle: MoodleQuestion) -> str:
    kind = kinds.of(question)
    if kind.no_gift:  # the export command leaves these out first, with a note
        raise ExportError(kind.no_gift)
    lines = [f"{QUESTION_META} {_json(_carried(question, moodle))}"]
    name = escape(f"{quiz.id} q{number}")
    lines.append(f"::{name}::{_text(moodle.prompt, prompt_notes(moodle))}{{")
    if kind.lms_form is LmsForm.NUMBER:
        lines[-1] += "#"
    answers = [f"\t{_answer(kind.lms_form, kind.picks_several, row)}" for row in moodle.answers]
    # GIFT has no hints: Moodle's interactive mode gives such a question one try.
    general = _text(moodle.explanation, explanation_notes(moodle, 1))
    lines += [*answers, f"\t####{general}", "}"]
    return "\n".join(lines)


def _answer(form: LmsForm, several: bool, row: LmsRow) -> str:
    """One answer line; `several`: options weighted as a multiple-answer question."""
    feedback = f"#{_text(row.feedback)}" if row.feedback else ""
    match form:
        case LmsForm.NUMBER:
            value = f"{row.text}:{number_text(row.tolerance)}"
            return f"=%{percent_text(row.value)}%{value}{feedback}"
        case LmsForm.TYPED:
            written = f"=%{percent_text(row.value)}%{_plain_answer(row.text)}{feedback}"
            if "->" in written:
                raise ExportError(
                    "'->' in a text answer or its feedback reads as matching in Moodle"
                )
            return written
        case LmsForm.SHOWN if several:
            return f"~%{percent_text(row.value)}%{_option(row.text)}{feedback}"
        case LmsForm.SHOWN:
            mark = "=" if row.value == 100 else "~"
            return f"{mark}{_option(row.text)}{feedback}"
        case _:
            assert_never(form)
