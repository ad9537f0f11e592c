"""Quizzes to and from Moodle's GIFT text format, following Moodle's own reader.

Moodle reads GIFT like this (question/format/gift in Moodle): questions are
separated by blank lines; lines starting with `//` are comments; `~ = # { } :`
and the backslash are escaped with a backslash and `\\n` is a newline; the answers
sit between the first `{` and the first `}`; `####` starts the general feedback;
`[html]` or `[markdown]` at the start of a text names its format. This module writes
exactly that and reads it back.

Every prompt, option and feedback goes out as `[html]` built by lms_answers (the Moodle XML
writer's HTML), never as `[markdown]`: Moodle's GIFT Markdown (Markdown Extra) passes raw
HTML and any link scheme through, and Moodle shows question text uncleaned.

GIFT has no syntax for hints (and the app's other per-question fields), and HTML cannot be
read back into the author's Markdown, so those travel in a `// attn-tui: {...}` comment
line before the question: Moodle ignores it and `attn-tui import` restores them (the
Markdown only where it still renders to the HTML beside it).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, assert_never

from tui_course.classroom.lms_answers import (
    CARRIED_FIELDS,
    ExportError,
    MoodleAnswer,
    MoodleQuestion,
    exact_tolerance,
    explanation_notes,
    number_text,
    percent_text,
    plain_html,
    prompt_notes,
    quiz_questions,
    safe_html,
    with_notes,
    without_last_note,
)
from tui_course.content import kinds
from tui_course.content.errors import ContentError
from tui_course.content.grading import normalise_text
from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.quizzes import MAX_OPTIONS, QUESTION_FIELDS, QUIZ_FIELDS
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field

_SPECIAL = {
    "\\": "\\\\",
    "~": "\\~",
    "=": "\\=",
    "#": "\\#",
    "{": "\\{",
    "}": "\\}",
    ":": "\\:",
    "\n": "\\n",
}
_UNESCAPE = {"\\": "\\", "~": "~", "=": "=", "#": "#", "{": "{", "}": "}", ":": ":", "n": "\n"}
_FORMAT_TAG = re.compile(r"^\[(markdown|html|plain|moodle)\]")
_WEIGHT = re.compile(r"^%(-?\d{1,3}(?:\.\d*)?)%")
# One way to read each digit run (not \d+\.?\d*, which tries every split of a long run):
# the pattern stays linear on a 20 KB line of digits.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMERIC_ANSWER = re.compile(
    rf"^(?P<value>{_NUMBER})\s*(?::\s*(?P<tol>{_NUMBER}))?$|^(?P<low>{_NUMBER})\s*\.\.\s*(?P<high>{_NUMBER})$"
)
_MOODLE_PLACEHOLDER = re.compile(r"&&(?:058;|035;|061;|123;|125;|126;|092;|010)")
_META = "// attn-tui:"
# An attn-tui comment holds a few short fields: whole numbers fit 18 digits (a TOML integer),
# and the whole comment fits the Markdown of one question many times over.
_JSON_INT_DIGITS = 18
_JSON_MAX_CHARS = 1_000_000
_QUIZ_META = "// attn-tui quiz:"
# The comment's entry holding each field's Markdown (prompt, explanation, feedback per answer).
_MARKDOWN = "markdown"
# The comment's mark that a numeric key has tolerance 0 in the app (Moodle gets its margin).
_EXACT = "exact"
# Quiz fields in the `// attn-tui quiz:` header; only those the quiz loader knows are read.
_QUIZ_FIELDS = ("id", "title", "after", "intro", "tries")


def _short(text: str, limit: int = 40) -> str:
    """Text quoted in a one-line error: a 20 KB answer is cut to its start."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "..."


# --- escaping -------------------------------------------------------------------------


def escape(text: str) -> str:
    """GIFT-escape text so none of it is read as syntax (one line: newlines become \\n)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(_SPECIAL.get(char, char) for char in text)


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


# --- export ---------------------------------------------------------------------------


def export_gift(quizzes: Sequence[Quiz]) -> str:
    """GIFT for the quizzes, each in its own Moodle category (attn-tui/<quiz id>)."""
    blocks = []
    for quiz in quizzes:
        header = {
            name: getattr(quiz, name)
            for name in _QUIZ_FIELDS
            if getattr(quiz, name, None) not in (None, "")
        }
        blocks.append(f"{_QUIZ_META} {_json(header)}\n$CATEGORY: $course$/top/attn-tui/{quiz.id}")
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
    numeric = kinds.of(question).reads_numbers
    if numeric and question.tolerance == question.rel_tolerance == 0:
        meta[_EXACT] = True  # the tolerance written is lms_answers.exact_tolerance
    meta[_MARKDOWN] = {
        "prompt": moodle.prompt,
        "explanation": moodle.explanation,
        "feedback": [answer.feedback or None for answer in moodle.answers],
    }
    return meta


def _question_block(quiz: Quiz, number: int, question: Question, moodle: MoodleQuestion) -> str:
    left_out = kinds.of(question).no_gift
    if left_out:  # the export command leaves these out first, with a note
        raise ExportError(left_out)
    lines = [f"{_META} {_json(_carried(question, moodle))}"]
    name = escape(f"{quiz.id} q{number}")
    lines.append(f"::{name}::{_text(moodle.prompt, prompt_notes(moodle))}{{")
    if kinds.of(question).reads_numbers:
        lines[-1] += "#"
    answers = [f"\t{_answer(moodle.kind, answer)}" for answer in moodle.answers]
    # GIFT has no hints: Moodle's interactive mode gives such a question one try.
    general = _text(moodle.explanation, explanation_notes(moodle, 1))
    lines += [*answers, f"\t####{general}", "}"]
    return "\n".join(lines)


def _answer(kind: Kind, answer: MoodleAnswer) -> str:
    feedback = f"#{_text(answer.feedback)}" if answer.feedback else ""
    match kind:
        case Kind.NUMERIC:
            value = f"{answer.text}:{number_text(answer.tolerance)}"
            return f"=%{percent_text(answer.percent)}%{value}{feedback}"
        case Kind.TEXT:
            written = f"=%{percent_text(answer.percent)}%{_plain_answer(answer.text)}{feedback}"
            if "->" in written:
                raise ExportError(
                    "'->' in a text answer or its feedback reads as matching in Moodle"
                )
            return written
        case Kind.CHOICE:
            mark = "=" if answer.percent == 100 else "~"
            return f"{mark}{_option(answer.text)}{feedback}"
        case Kind.MULTI:
            return f"~%{percent_text(answer.percent)}%{_option(answer.text)}{feedback}"
        case Kind.CODE | Kind.ORDER:  # their kinds' no_gift: refused in _question_block
            raise ExportError(f"GIFT has no syntax for a {kind} question")
        case _:
            assert_never(kind)


# --- import: HTML written elsewhere, as the app's text ----------------------------------------

_BLOCK_TAGS = {"p", "br", "div", "li", "tr", "pre", "blockquote", *(f"h{n}" for n in range(1, 7))}
_HIDDEN_TAGS = {"script", "style"}


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in _HIDDEN_TAGS
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in _HIDDEN_TAGS and self.hidden > 0
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """What a browser shows of HTML, as text: tags dropped, entities read, blocks as lines."""
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    # An entity can spell a control character (&#27; is ESC): cleaned like the file itself.
    lines = strip_control("".join(parser.parts)).split("\n")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in lines)).strip()


_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>&~|])")
_MARKDOWN_LINE_START = re.compile(r"^(\s*(?:\d+)?)([#>+=.)-])", re.MULTILINE)


def markdown_escape(text: str) -> str:
    """Text the app's Markdown shows exactly as written (`2*3*4`, `__init__`, `1. fit`)."""
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", text)
    return _MARKDOWN_LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", escaped)


# --- import: source text with escapes resolved ---------------------------------------


@dataclass(frozen=True)
class _Src:
    """Question text after escapes: `literal` marks characters that can never be syntax."""

    chars: str
    literal: tuple[bool, ...]
    lines: tuple[int, ...]

    @staticmethod
    def unescape(raw: str, lines: Sequence[int]) -> _Src:
        chars: list[str] = []
        literal: list[bool] = []
        where: list[int] = []
        index = 0
        while index < len(raw):
            char = raw[index]
            if char == "\\" and index + 1 < len(raw) and raw[index + 1] in _UNESCAPE:
                chars.append(_UNESCAPE[raw[index + 1]])
                literal.append(True)
                where.append(lines[index])
                index += 2
                continue
            chars.append(char)
            literal.append(False)
            where.append(lines[index])
            index += 1
        return _Src("".join(chars), tuple(literal), tuple(where))

    def __add__(self, other: _Src) -> _Src:
        return _Src(
            self.chars + other.chars, self.literal + other.literal, self.lines + other.lines
        )

    def __len__(self) -> int:
        return len(self.chars)

    def __getitem__(self, key: slice) -> _Src:
        return _Src(self.chars[key], self.literal[key], self.lines[key])

    def line(self, index: int = 0) -> int:
        if not self.lines:
            return 0
        return self.lines[min(max(index, 0), len(self.lines) - 1)]

    def find(self, syntax: str, start: int = 0) -> int:
        """First index of `syntax` made of unescaped characters, or -1."""
        index = self.chars.find(syntax, start)
        while index >= 0 and any(self.literal[index : index + len(syntax)]):
            index = self.chars.find(syntax, index + 1)
        return index

    def rfind(self, syntax: str) -> int:
        index = self.chars.rfind(syntax)
        while index >= 0 and any(self.literal[index : index + len(syntax)]):
            index = self.chars.rfind(syntax, 0, index + len(syntax) - 1)
        return index

    def strip(self) -> _Src:
        start, end = 0, len(self.chars)
        while start < end and self.chars[start].isspace():
            start += 1
        while end > start and self.chars[end - 1].isspace():
            end -= 1
        return self[start:end]

    def split_before(self, markers: str) -> list[_Src]:
        """Pieces starting at each unescaped marker character (the marker kept)."""
        cuts = [
            i
            for i, char in enumerate(self.chars)
            if char in markers and not self.literal[i] and i > 0
        ]
        bounds = [0, *cuts, len(self.chars)]
        return [self[a:b] for a, b in itertools.pairwise(bounds) if b > a]


# --- import -----------------------------------------------------------------------------


@dataclass
class ImportedQuiz:
    """One quiz in the TOML schema of content/quizzes.py, with the GIFT line of each question."""

    data: dict[str, Any]
    question_lines: list[int] = field(default_factory=list)
    line: int | None = None  # its `// attn-tui quiz:` header, if it has one


@dataclass
class GiftImport:
    quizzes: list[ImportedQuiz]
    notes: list[str]  # "file:line: what was left out", for stderr


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
            if line.startswith(_QUIZ_META):
                _start_quiz(reader, number, _read_json(reader, number, line[len(_QUIZ_META) :]))
            elif line.startswith(_META):
                meta = _read_json(reader, number, line[len(_META) :])
            elif not line.startswith("//"):
                body.append((number, line))
        if not body:
            continue
        raw = "\n".join(line for _, line in body)
        lines = [number for number, line in body for _ in range(len(line) + 1)]
        source = _Src.unescape(raw, lines).strip()
        if source.chars.startswith("$CATEGORY:"):
            reader.category = source.chars[len("$CATEGORY:") :].strip().rsplit("/", 1)[-1]
            continue
        reader.markdown = _markdown_sources(reader, block[0][0], meta.pop(_MARKDOWN, {}))
        reader.exact = meta.pop(_EXACT, False) is True
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
        if name not in _QUIZ_FIELDS or spec is None:
            reader.note(line, f"attn-tui quiz comment: '{name}' is not known here, left out")
        elif not _type_ok(value, spec):
            raise reader.error(line, f"attn-tui quiz comment: '{name}' must be {spec.describe}")
        else:
            data[name] = strip_control(value) if isinstance(value, str) else value
    data.setdefault("id", reader.stem_id)
    data.setdefault("title", data["id"])
    reader.quizzes.append(ImportedQuiz(data, line=line))


def _format_of(source: _Src, default: str) -> tuple[str, _Src]:
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


def _field(reader: _Reader, source: _Src, default: str, role: Role) -> str:
    """A text field (option, feedback): its own format tag read, then decoded."""
    fmt, body = _format_of(source.strip(), default)
    return _decoded(reader, body, fmt, role)


def _decoded(reader: _Reader, source: _Src, fmt: str, role: Role) -> str:
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


def _question(reader: _Reader, source: _Src, meta: dict[str, Any]) -> dict[str, Any] | None:
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


def _weight(piece: _Src) -> tuple[float | None, _Src]:
    match = _WEIGHT.match(piece.chars)
    if match and not any(piece.literal[: match.end()]):
        return float(match.group(1)), piece[match.end() :]
    return None, piece


def _feedback(reader: _Reader, piece: _Src, fmt: str, index: int) -> tuple[_Src, str]:
    cut = piece.find("#")
    if cut < 0:
        return piece.strip(), ""
    return piece[:cut].strip(), _field(reader, piece[cut + 1 :], fmt, ("feedback", index))


def _multichoice(reader: _Reader, answers: _Src, fmt: str) -> dict[str, Any]:
    single = answers.find("=") >= 0
    options: list[str] = []
    right: list[int] = []
    feedback: dict[int, str] = {}
    for number, piece in enumerate(answers.split_before("~="), start=1):
        marker = piece.chars[0] if piece.chars and not piece.literal[0] else ""
        if marker not in ("~", "="):  # text before the first marker: Moodle's wrong answer
            marker, piece = "~", _Src("~", (False,), (piece.line(),)) + piece
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


def _true_false_word(answers: _Src) -> str:
    cut = answers.find("#")
    return (answers[:cut] if cut >= 0 else answers).chars.strip()


def _true_false(reader: _Reader, answers: _Src, fmt: str) -> dict[str, Any]:
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


def _short_answer(reader: _Reader, answers: _Src, fmt: str) -> dict[str, Any]:
    keys: list[str] = []
    mistakes: list[dict[str, Any]] = []
    # attn-tui writes each key's forms as more answers (lms_answers.text_variants): a form
    # that reads as an answer already taken adds nothing.
    read_as: set[str] = set()
    for index, piece in enumerate(answers.split_before("=")):
        if piece.literal[0] or piece.chars[0] != "=":  # {answer} alone: right, as in Moodle
            piece = _Src("=", (False,), (piece.line(),)) + piece
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


def _numeric(reader: _Reader, answers: _Src, fmt: str) -> dict[str, Any]:
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
        elif percent >= 100:  # more right numbers: Question.also_accepted
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


def _numeric_value(reader: _Reader, source: _Src) -> tuple[float, float]:
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


def checked_toml(quiz: ImportedQuiz, shown: str) -> str:
    """The quiz as TOML that the app's own loader and key prover accept.

    Anything they refuse is reported at the GIFT line of the question concerned.
    """
    import tempfile
    from pathlib import Path

    from tui_course.answers import prove_quiz
    from tui_course.classroom.quiz_toml import dumps
    from tui_course.content.quizzes import load_quiz

    try:
        text = dumps(quiz.data)
    except ValueError as error:
        raise ContentError(shown, None, f"cannot be written as a quiz: {error}") from None
    with tempfile.TemporaryDirectory(prefix="attn-tui-import-") as folder:
        path = Path(folder) / "quiz.toml"  # never the id: it comes from the file
        path.write_text(text, encoding="utf-8")
        try:
            problems = prove_quiz(load_quiz(path))
        except ContentError as error:
            problems = [error]
    if problems:
        raise ContentError(shown, _gift_line(quiz, text, problems[0]), problems[0].message)
    return text


def _gift_line(quiz: ImportedQuiz, toml: str, problem: ContentError) -> int | None:
    """The GIFT line behind a problem the loader found in the TOML written from it: the
    question it names, else the question whose table holds its TOML line, else the
    quiz header."""
    match = re.match(r"question (\d+)", problem.message)
    number = int(match.group(1)) if match else None
    if number is None and problem.line is not None:
        above = toml.split("\n")[: problem.line]
        number = sum(line == "[[question]]" for line in above) or None
    if number is not None and 0 < number <= len(quiz.question_lines):
        return quiz.question_lines[number - 1]
    return quiz.line
