"""GIFT into quizzes, read as Moodle's own reader (question/format/gift) reads it.

Questions are separated by blank lines; lines starting with `//` are comments; the answers
sit between the first unescaped `{` and `}`; `####` starts the general feedback; `[html]` or
`[markdown]` at the start of a text names its format. What the app cannot ask (essays,
matching, descriptions, partial credit, wildcards) is left out with a note at its line.

A `// attn-tui: {...}` comment written by the export (gift/export.py) gives back what GIFT
has no syntax for: hints and the other carried fields, and the Markdown behind each HTML
field (taken only where it still renders to the HTML beside it).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tui_course.classroom.gift.html_text import html_to_text, markdown_escape
from tui_course.classroom.gift.imported import GiftImport, ImportedQuiz
from tui_course.classroom.gift.syntax import (
    EXACT_ENTRY,
    MARKDOWN_ENTRY,
    QUESTION_META,
    QUIZ_HEADER_FIELDS,
    QUIZ_META,
    UnescapedText,
)
from tui_course.classroom.lms_answers import CARRIED_FIELDS, safe_html, without_last_note
from tui_course.content.errors import ContentError
from tui_course.content.grading import normalise_text
from tui_course.content.kinds.numeric_margins import exact_tolerance
from tui_course.content.quizzes import MAX_OPTIONS, QUESTION_FIELDS, QUIZ_FIELDS
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field

_FORMAT_TAG = re.compile(r"^\[(markdown|html|plain|moodle)\]")
_WEIGHT = re.compile(r"^%(-?\d{1,3}(?:\.\d*)?)%")
# One way to read each digit run (not \d+\.?\d*, which tries every split of a long run):
# the pattern stays linear on a 20 KB line of digits.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMERIC_ANSWER = re.compile(
    rf"^(?P<value>{_NUMBER})\s*(?::\s*(?P<tol>{_NUMBER}))?$|^(?P<low>{_NUMBER})\s*\.\.\s*(?P<high>{_NUMBER})$"
)
# An attn-tui comment holds a few short fields: whole numbers fit 18 digits (a TOML integer),
# and the whole comment fits the Markdown of one question many times over.
_JSON_INT_DIGITS = 18
_JSON_MAX_CHARS = 1_000_000


def _short(text: str, limit: int = 40) -> str:
    """Text quoted in a one-line error: a 20 KB answer is cut to its start."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass
class _Reader:
    shown: str
    stem_id: str
    notes: list[str] = field(default_factory=list)
    quizzes: list[ImportedQuiz] = field(default_factory=list)
    category: str | None = None
    # The current question's Markdown from its attn-tui comment (prompt, explanation, feedback).
    markdown: dict[str, Any] = field(default_factory=dict)
    exact: bool = False

    def error(self, line: int, message: str) -> ContentError:
        return ContentError(self.shown, line or None, message)

    def note(self, line: int, message: str) -> None:
        self.notes.append(f"{self.shown}:{line}: {message}")

    def current(self) -> ImportedQuiz:
        if not self.quizzes:
            title = self.category or self.stem_id
            self.quizzes.append(ImportedQuiz({"id": self.stem_id, "title": title}))
        return self.quizzes[-1]


def parse_gift(text: str, shown: str, default_id: str = "imported") -> GiftImport:
    """Read GIFT into quiz tables; raises ContentError (file:line: message) on bad input."""
    reader = _Reader(shown, default_id)
    text = strip_control(text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))
    meta: dict[str, Any] = {}
    for block in _blocks(text):
        body: list[tuple[int, str]] = []
        for number, line in block:
            if line.startswith(QUIZ_META):
                _start_quiz(reader, number, _read_json(reader, number, line[len(QUIZ_META) :]))
            elif line.startswith(QUESTION_META):
                meta = _read_json(reader, number, line[len(QUESTION_META) :])
            elif not line.startswith("//"):
                body.append((number, line))
        if not body:
            continue
        raw = "\n".join(line for _, line in body)
        lines = [number for number, line in body for _ in range(len(line) + 1)]
        source = UnescapedText.unescape(raw, lines).strip()
        if source.chars.startswith("$CATEGORY:"):
            reader.category = source.chars[len("$CATEGORY:") :].strip().rsplit("/", 1)[-1]
            continue
        reader.markdown = _markdown_sources(reader, block[0][0], meta.pop(MARKDOWN_ENTRY, {}))
        reader.exact = meta.pop(EXACT_ENTRY, False) is True
        question = _question(reader, source, meta)
        meta = {}
        if question is not None:
            quiz = reader.current()
            quiz.data.setdefault("question", []).append(question)
            quiz.question_lines.append(source.line())
    quizzes = [quiz for quiz in reader.quizzes if quiz.data.get("question")]
    if not quizzes:
        raise ContentError(shown, None, "holds no question the app can ask")
    return GiftImport(quizzes, reader.notes)


def _blocks(text: str) -> Iterable[list[tuple[int, str]]]:
    """Runs of non-blank lines (stripped, numbered from 1), as Moodle splits questions."""
    block: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            block.append((number, line.strip()))
        elif block:
            yield block
            block = []
    if block:
        yield block


class _JsonNumberError(ValueError):
    """A number in an attn-tui comment that no quiz field can hold."""


def _json_int(text: str) -> int:
    # Checked on the digits, before int(): 5,000 digits would raise Python's own limit.
    if len(text.lstrip("-")) > _JSON_INT_DIGITS:
        raise _JsonNumberError(f"the number {text[:12]}... has more than {_JSON_INT_DIGITS} digits")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _JsonNumberError(f"the number {_short(text)} is too large")
    return value


def _json_constant(name: str) -> float:
    raise _JsonNumberError(f"{name} is not a number a quiz can hold")


def _read_json(reader: _Reader, line: int, text: str) -> dict[str, Any]:
    if len(text) > _JSON_MAX_CHARS:
        raise reader.error(line, f"attn-tui comment is longer than {_JSON_MAX_CHARS} characters")
    try:
        value = json.loads(
            text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant
        )
    except json.JSONDecodeError as error:
        raise reader.error(line, f"attn-tui comment is not valid JSON: {error.msg}") from None
    except RecursionError:
        raise reader.error(line, "attn-tui comment is nested too deeply") from None
    except ValueError as error:  # _JsonNumberError, or any other number json cannot make
        raise reader.error(line, f"attn-tui comment: {error}") from None
    if not isinstance(value, dict):
        raise reader.error(line, "attn-tui comment must hold a JSON object")
    return value


def _start_quiz(reader: _Reader, line: int, header: dict[str, Any]) -> None:
    data: dict[str, Any] = {}
    for name, value in header.items():
        spec = QUIZ_FIELDS.get(name)
        if name not in QUIZ_HEADER_FIELDS or spec is None:
            reader.note(line, f"attn-tui quiz comment: '{name}' is not known here, left out")
        elif not _type_ok(value, spec):
            raise reader.error(line, f"attn-tui quiz comment: '{name}' must be {spec.describe}")
        else:
            data[name] = strip_control(value) if isinstance(value, str) else value
    data.setdefault("id", reader.stem_id)
    data.setdefault("title", data["id"])
    reader.quizzes.append(ImportedQuiz(data, line=line))


def _format_of(source: UnescapedText, default: str) -> tuple[str, UnescapedText]:
    match = _FORMAT_TAG.match(source.chars)
    if match and not any(source.literal[: match.end()]):
        return match.group(1), source[match.end() :].strip()
    return default, source


def _markdown_sources(reader: _Reader, line: int, value: Any) -> dict[str, Any]:
    feedback = value.get("feedback", []) if isinstance(value, dict) else None
    if not (
        isinstance(value, dict)
        and all(isinstance(value.get(k, ""), str) for k in ("prompt", "explanation"))
        and isinstance(feedback, list)
        and all(isinstance(item, str | None) for item in feedback)
    ):
        message = "attn-tui comment: 'markdown' must be {prompt, explanation, feedback}"
        raise reader.error(line, message)
    return value


# A field's role, to find its Markdown in the comment: "prompt", "explanation",
# ("feedback", answer number from 0), or OPTION (plain text, no Markdown).
Role = str | tuple[str, int]
OPTION: Role = "option"


def _field(reader: _Reader, source: UnescapedText, default: str, role: Role) -> str:
    """A text field (option, feedback): its own format tag read, then decoded."""
    fmt, body = _format_of(source.strip(), default)
    return _decoded(reader, body, fmt, role)


def _decoded(reader: _Reader, source: UnescapedText, fmt: str, role: Role) -> str:
    """The field as the app's text: HTML gets back the Markdown it was written from (when the
    comment's Markdown still renders to it), or else its text; other formats stay as they are.
    """
    if fmt != "html":
        return source.chars
    if role == OPTION:
        return html_to_text(source.chars)
    if isinstance(role, tuple):
        listed = reader.markdown.get(role[0], [])
        markdown = listed[role[1]] if role[1] < len(listed) else None
    else:
        markdown = reader.markdown.get(role)
    # Take off the notes the export appended one by one (an author's own last paragraph
    # may read like one): the Markdown counts where it renders to what is left.
    html = source.chars
    while True:
        if isinstance(markdown, str) and safe_html(markdown) == html:
            return markdown
        shorter = without_last_note(html)
        if shorter == html:
            return markdown_escape(html_to_text(html))
        html = shorter


def _question(
    reader: _Reader, source: UnescapedText, meta: dict[str, Any]
) -> dict[str, Any] | None:
    start_line = source.line()
    if source.chars.startswith("::") and not any(source.literal[:2]):
        close = source.find("::", 2)
        if close < 0:
            raise reader.error(start_line, "question title opened with '::' is not closed")
        source = source[close + 2 :].strip()
    opening, closing = source.find("{"), source.find("}")
    if opening < 0 and closing < 0:
        reader.note(start_line, "skipped a description (no answers): the app has no such item")
        return None
    if opening < 0 or closing < 0 or closing < opening:
        where = source.line(closing if opening < 0 else opening)
        raise reader.error(where, "unbalanced '{' '}' (escape literal braces as \\{ and \\})")
    after = source[closing + 1 :].strip()
    prompt_src = source[:opening].strip()
    answers = source[opening + 1 : closing].strip()
    fmt, prompt_src = _format_of(prompt_src, "moodle")
    prompt = _decoded(reader, prompt_src, fmt, "prompt")
    if after.chars:
        prompt = f"{prompt} _____ {_decoded(reader, after, fmt, 'prompt')}".strip()
    explanation = ""
    general = answers.rfind("####")
    if general >= 0:
        explanation = _field(reader, answers[general + 4 :], fmt, "explanation")
        answers = answers[:general].strip()
    line = source.line(opening)
    if not answers.chars:
        reader.note(line, "skipped an essay question: the app cannot grade free text")
        return None
    if answers.chars.startswith("#") and not answers.literal[0]:
        table = _numeric(reader, answers[1:], fmt)
    elif answers.find("~") >= 0:
        table = _multichoice(reader, answers, fmt)
    elif answers.find("=") >= 0 and answers.find("->") >= 0:
        reader.note(line, "skipped a matching question: the app has no such kind")
        return None
    elif _true_false_word(answers) in _TRUE_FALSE:
        table = _true_false(reader, answers, fmt)
    else:
        table = _short_answer(reader, answers, fmt)
    question: dict[str, Any] = {"kind": table.pop("kind"), "prompt": prompt}
    question.update(table)
    _apply_meta(reader, start_line, question, meta)
    question["explanation"] = explanation or _generated_explanation(reader, line, question)
    mistakes = question.pop("mistake", [])
    if mistakes:
        question["mistake"] = mistakes
    _check(reader, line, question)
    return question


_TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}


def _weight(piece: UnescapedText) -> tuple[float | None, UnescapedText]:
    match = _WEIGHT.match(piece.chars)
    if match and not any(piece.literal[: match.end()]):
        return float(match.group(1)), piece[match.end() :]
    return None, piece


def _feedback(
    reader: _Reader, piece: UnescapedText, fmt: str, index: int
) -> tuple[UnescapedText, str]:
    cut = piece.find("#")
    if cut < 0:
        return piece.strip(), ""
    return piece[:cut].strip(), _field(reader, piece[cut + 1 :], fmt, ("feedback", index))


def _multichoice(reader: _Reader, answers: UnescapedText, fmt: str) -> dict[str, Any]:
    single = answers.find("=") >= 0
    options: list[str] = []
    right: list[int] = []
    feedback: dict[int, str] = {}
    for number, piece in enumerate(answers.split_before("~="), start=1):
        marker = piece.chars[0] if piece.chars and not piece.literal[0] else ""
        if marker not in ("~", "="):  # text before the first marker: Moodle's wrong answer
            marker, piece = "~", UnescapedText("~", (False,), (piece.line(),)) + piece
        # Moodle reads a %weight% after '~' only; '=' is always 100 %.
        weight, rest = _weight(piece[1:].strip()) if marker == "~" else (None, piece[1:].strip())
        percent = 100.0 if marker == "=" else (weight or 0.0)
        text, note = _feedback(reader, rest, fmt, number - 1)
        options.append(_field(reader, text, fmt, OPTION))
        if single and marker == "~" and percent > 0:
            reader.note(piece.line(), f"option {number}: partial credit {percent:g}% graded wrong")
        if percent > 0 and (marker == "=" or not single):
            right.append(number)
            if note:
                reader.note(piece.line(), f"option {number}: feedback on a right option left out")
        elif note:
            feedback[number] = note
    if len(options) < 2:
        raise reader.error(answers.line(), "a multiple choice question needs at least 2 answers")
    if not right:
        raise reader.error(answers.line(), "no answer is right (mark one with '=' or a % weight)")
    if single and len(right) > 1:
        raise reader.error(answers.line(), "more than one '=' answer in a single-choice question")
    if single:
        table: dict[str, Any] = {"kind": "choice", "options": options, "answer": right[0]}
        table["mistake"] = [{"answer": n, "feedback": f} for n, f in feedback.items()]
    else:
        table = {"kind": "multi", "options": options, "answer": right}
        table["mistake"] = [
            {"answer": sorted({*right, n}), "feedback": text} for n, text in feedback.items()
        ]
    return table


def _true_false_word(answers: UnescapedText) -> str:
    cut = answers.find("#")
    return (answers[:cut] if cut >= 0 else answers).chars.strip()


def _true_false(reader: _Reader, answers: UnescapedText, fmt: str) -> dict[str, Any]:
    """{T} or {FALSE#feedback for a wrong answer#feedback for a right one}: a two-option choice."""
    cut = answers.find("#")
    feedback = ""
    if cut >= 0:
        rest = answers[cut + 1 :]
        second = rest.find("#")
        feedback = _field(reader, rest[:second] if second >= 0 else rest, fmt, ("feedback", 0))
    truth = _TRUE_FALSE[_true_false_word(answers)]
    table: dict[str, Any] = {"kind": "choice", "options": ["True", "False"]}
    table["answer"] = 1 if truth else 2
    if feedback:
        table["mistake"] = [{"answer": 2 if truth else 1, "feedback": feedback}]
    return table


def _short_answer(reader: _Reader, answers: UnescapedText, fmt: str) -> dict[str, Any]:
    keys: list[str] = []
    mistakes: list[dict[str, Any]] = []
    # attn-tui writes each key's forms as more answers (content/kinds/text_forms.py): a form
    # that reads as an answer already taken adds nothing.
    read_as: set[str] = set()
    for index, piece in enumerate(answers.split_before("=")):
        if piece.literal[0] or piece.chars[0] != "=":  # {answer} alone: right, as in Moodle
            piece = UnescapedText("=", (False,), (piece.line(),)) + piece
        weight, rest = _weight(piece[1:].strip())
        percent = 100.0 if weight is None else weight
        text_src, feedback = _feedback(reader, rest, fmt, index)
        _, text_src = _format_of(text_src, fmt)
        text = text_src.chars
        if re.search(r"(?<!\\)\*", text):
            reader.note(piece.line(), f"answer {text!r}: Moodle wildcards (*) left out")
            continue
        text = text.replace("\\*", "*")
        if not text.strip():
            raise reader.error(piece.line(), "an empty short answer")
        if percent >= 100 or feedback:
            if normalise_text(text) in read_as:
                continue
            read_as.add(normalise_text(text))
        if percent >= 100:
            keys.append(text)
            if feedback:
                reader.note(piece.line(), "feedback on a right answer left out")
        elif percent > 0:
            reader.note(piece.line(), f"answer {text!r}: partial credit {percent:g}% left out")
        elif feedback:
            if mistakes and mistakes[-1]["feedback"] == feedback:
                mistakes[-1]["answer"].append(text)
            else:
                mistakes.append({"answer": [text], "feedback": feedback})
    if not keys:
        raise reader.error(answers.line(), "no short answer is fully right (=answer or =%100%)")
    return {"kind": "text", "answer": keys, "mistake": mistakes}


def _numeric(reader: _Reader, answers: UnescapedText, fmt: str) -> dict[str, Any]:
    wrong = answers.find("~")
    if wrong >= 0:
        reader.note(answers.line(wrong), "feedback for any other number ('~') left out")
        answers = answers[:wrong]
    pieces = answers.strip().split_before("=")
    key: tuple[float, float] | None = None
    also: list[float] = []
    mistakes: list[dict[str, Any]] = []
    for index, piece in enumerate(pieces):
        if piece.chars.startswith("=") and not piece.literal[0]:
            piece = piece[1:].strip()
        weight, rest = _weight(piece)
        percent = 100.0 if weight is None else weight
        value_src, feedback = _feedback(reader, rest, fmt, index)
        value, tolerance = _numeric_value(reader, value_src)
        if percent >= 100 and key is None:
            key = (value, tolerance)
        elif percent >= 100:  # more right numbers: NumericSpec.also_accepted
            also.append(value)
            if key is not None and tolerance != key[1]:
                reader.note(piece.line(), f"{value:g} is graded with the first number's tolerance")
        elif percent > 0:
            reader.note(piece.line(), f"partial credit {percent:g}% for {value:g} left out")
        elif feedback:
            mistakes.append({"answer": value, "feedback": feedback})
    if key is None:
        raise reader.error(answers.line(), "no number is fully right (=value or =%100%value)")
    table: dict[str, Any] = {"kind": "numeric", "answer": [key[0], *also] if also else key[0]}
    # attn-tui writes a key of tolerance 0 with the margin the app grades it with.
    if key[1] and not (reader.exact and key[1] == exact_tolerance(key[0])):
        table["tolerance"] = key[1]
    table["mistake"] = mistakes
    return table


def _numeric_value(reader: _Reader, source: UnescapedText) -> tuple[float, float]:
    match = _NUMERIC_ANSWER.match(source.chars.strip())
    if not match:
        raise reader.error(
            source.line(), f"'{_short(source.chars)}' is not a number, number:tolerance or min..max"
        )
    if match.group("value") is not None:
        value = float(match.group("value"))
        tolerance = float(match.group("tol") or 0)
    else:
        low, high = float(match.group("low")), float(match.group("high"))
        value, tolerance = (low + high) / 2, abs(high - low) / 2
    if tolerance < 0:
        raise reader.error(source.line(), "a tolerance must not be negative")
    if not (math.isfinite(value) and math.isfinite(tolerance)):
        raise reader.error(source.line(), f"'{_short(source.chars)}' is too large a number")
    return value, tolerance


def _apply_meta(reader: _Reader, line: int, question: dict[str, Any], meta: dict[str, Any]) -> None:
    """Fields from the `// attn-tui:` comment, type-checked like the quiz loader does."""
    for name, value in meta.items():
        if name == "mistakes" and question["kind"] == "multi":
            question["mistake"] = question.get("mistake", []) + _meta_mistakes(reader, line, value)
            continue
        spec = QUESTION_FIELDS.get(name)
        if name not in CARRIED_FIELDS or spec is None:
            reader.note(line, f"attn-tui comment: '{name}' is not known here, left out")
            continue
        if not _type_ok(value, spec):
            raise reader.error(line, f"attn-tui comment: '{name}' must be {spec.describe}")
        question[name] = [strip_control(v) for v in value] if isinstance(value, list) else value


def _type_ok(value: Any, spec: Field) -> bool:
    """The quiz loader's type rule (bools are not numbers) for a value from a JSON comment."""
    ok = isinstance(value, spec.types) and not isinstance(value, bool)
    if ok and spec.items is not None:
        ok = all(isinstance(item, spec.items) for item in value)
    return ok


def _meta_mistakes(reader: _Reader, line: int, value: Any) -> list[dict[str, Any]]:
    entries = value if isinstance(value, list) else [None]
    result = []
    for entry in entries:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("feedback"), str)
            and isinstance(entry.get("answer"), list)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in entry["answer"])
        ):
            raise reader.error(line, "attn-tui comment: 'mistakes' must be [{answer, feedback}]")
        result.append({"answer": entry["answer"], "feedback": strip_control(entry["feedback"])})
    return result


def _generated_explanation(reader: _Reader, line: int, question: dict[str, Any]) -> str:
    """The app always explains; a GIFT file without general feedback gets the key spelled out."""
    reader.note(line, "no general feedback (####): the explanation states the answer")
    answer = question["answer"]
    if question["kind"] == "choice":
        return f"The right answer is: {question['options'][answer - 1]}"
    if question["kind"] == "multi":
        picked = "; ".join(question["options"][n - 1] for n in answer)
        return f"The right answers are: {picked}"
    if question["kind"] == "numeric":
        numbers = answer if isinstance(answer, list) else [answer]
        return f"The right answer is {' or '.join(f'{n:g}' for n in numbers)}."
    return f"The right answer is: {answer[0]}"


def _check(reader: _Reader, line: int, question: dict[str, Any]) -> None:
    """What the quiz loader would refuse, said at the GIFT line."""
    options = question.get("options", [])
    if options and not 2 <= len(options) <= MAX_OPTIONS:
        raise reader.error(line, f"needs between 2 and {MAX_OPTIONS} answers, got {len(options)}")
    if any(not option.strip() for option in options):
        raise reader.error(line, "an answer text is empty")
    if not question["prompt"].strip():
        raise reader.error(line, "the question text is empty")
