"""What GIFT and Moodle XML share: a quiz question laid out as Moodle grades it.

Moodle knows answers with a grade fraction and feedback; the app knows keys,
tolerances and targeted mistakes. `moodle_question` does that translation once so
both writers give the same grades, and says which mistakes have no place there.
Both writers also share the one HTML renderer (safe_html: Moodle shows question text
uncleaned), the notes said where Moodle grades differently, and the text forms and
numeric margins that make Moodle accept what the app accepts (docs/teaching.md: Quizzes in
Moodle).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, assert_never

from markdown_it import MarkdownIt

from tui_course.answers import resolve
from tui_course.content import kinds
from tui_course.content.errors import ContentError
from tui_course.content.grading import MAX_RANGE, normalise_text
from tui_course.content.kinds import tries_allowed
from tui_course.content.models import Kind, Mistake, Question, Quiz
from tui_course.maths.expression import ExpressionError

# Question fields the LMS formats have no syntax for. GIFT keeps them in a comment
# Moodle ignores; import reads back only the names the quiz loader accepts (quizzes.py).
CARRIED_FIELDS = ("hints", "tries")


class ExportError(ValueError):
    """A question that cannot be written in the chosen format, said in one line."""


@dataclass(frozen=True)
class MoodleAnswer:
    """One answer row: text (or number), grade in percent, feedback."""

    text: str
    percent: float
    feedback: str = ""
    tolerance: float = 0.0  # numeric only
    number: float = 0.0  # numeric only


@dataclass(frozen=True)
class MoodleQuestion:
    kind: Kind
    prompt: str
    explanation: str
    answers: tuple[MoodleAnswer, ...]
    hints: tuple[str, ...]
    tries: int = 1  # how many answers the app takes
    # Mistakes no answer row can hold (a multi mistake that is not "the key plus one").
    unplaced: tuple[Mistake, ...] = ()


# --- HTML that Moodle shows as it is --------------------------------------------------------

# Moodle shows question text without cleaning it, so the writers send HTML they built
# themselves: markdown-it (CommonMark) with raw HTML off (a tag in a quiz is text), images
# off (nothing loads from elsewhere: `![alt](url)` is a "!" and a plain link) and links
# kept only for these schemes (anything else stays visible text).
LINK_SCHEMES = ("http://", "https://")


def _http_only(url: str) -> bool:
    return url.strip().lower().startswith(LINK_SCHEMES)


# Text characters Markdown (Markdown Extra too) reads as inline syntax, written as numeric
# entities: should Moodle ever take the HTML for Markdown again (a teacher switching the
# field's format), there is no link, image, emphasis or code span left in it to read.
_INERT = {char: f"&#{ord(char)};" for char in "\\`*_[]!{}|~#"} | {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
}


def inert_text(text: str) -> str:
    """Text as HTML that neither a browser nor a Markdown reader takes for syntax."""
    return "".join(_INERT.get(char, char) for char in text)


def _render_text(self: Any, tokens: Sequence[Any], index: int, options: Any, env: Any) -> str:
    return inert_text(tokens[index].content)


def _render_code_inline(
    self: Any, tokens: Sequence[Any], index: int, options: Any, env: Any
) -> str:
    return f"<code>{inert_text(tokens[index].content)}</code>"


def _render_code_block(self: Any, tokens: Sequence[Any], index: int, options: Any, env: Any) -> str:
    return f"<pre><code>{inert_text(tokens[index].content)}</code></pre>\n"


@cache
def _markdown() -> MarkdownIt:
    # A fence's code goes through `highlight`: the same inert text.
    parser = MarkdownIt(
        "commonmark", {"html": False, "highlight": lambda code, *_: inert_text(code)}
    ).disable("image")
    parser.validateLink = _http_only  # type: ignore[method-assign]
    parser.add_render_rule("text", _render_text)
    parser.add_render_rule("code_inline", _render_code_inline)
    parser.add_render_rule("code_block", _render_code_block)
    return parser


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Without the characters XML 1.0 cannot hold (ElementTree would write a broken file)."""
    return _NOT_XML.sub("", text)


def safe_html(markdown: str) -> str:
    """The app's Markdown as HTML in which no tag, attribute or scheme comes from the text."""
    return str(_markdown().render(xml_text(markdown))).strip()


def plain_html(text: str) -> str:
    """Text the app shows as it is (an option): escaped, nothing read as Markdown."""
    return inert_text(xml_text(text))


# Said in the exported text where Moodle grades differently from the app (docs/teaching.md:
# Quizzes in Moodle). Each is one paragraph appended to the HTML, so the importer can take it
# off again.
PLAIN_DECIMAL_NOTE = (
    "Type a plain decimal such as 0.25: Moodle does not read 0,25, 25%, fractions or"
    " expressions, which attn-tui accepts."
)
MULTI_NOTE = (
    "Graded differently in attn-tui: there only the exact set of right options counts;"
    " here each right option ticked earns its share and each wrong one takes a share away."
)
_TRIES_NOTE = "In attn-tui this question allows {tries}; here {moodle}."
_NOTE_PARAGRAPH = re.compile(
    "\n<p>(?:"
    + "|".join(
        [
            re.escape(PLAIN_DECIMAL_NOTE),
            re.escape(MULTI_NOTE),
            "In attn-tui this question allows \\d+ tr(?:y|ies); here [^<]*\\.",
        ]
    )
    + ")</p>\\Z"
)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word[:-1]}ies"


def tries_note(app_tries: int, moodle_tries: int) -> str:
    """The sentence telling a Moodle student how the app's tries differ (empty if they agree)."""
    if app_tries == moodle_tries:
        return ""
    return _TRIES_NOTE.format(
        tries=_plural(app_tries, "try"),
        moodle=f"interactive mode allows {_plural(moodle_tries, 'try')} (one per hint, plus one)",
    )


def with_notes(html: str, notes: Iterable[str]) -> str:
    """HTML with each non-empty note appended as its own paragraph."""
    return html + "".join(f"\n<p>{plain_html(note)}</p>" for note in notes if note)


def without_last_note(html: str) -> str:
    """The HTML without the last paragraph with_notes appended (unchanged if none)."""
    return _NOTE_PARAGRAPH.sub("", html, count=1)


def prompt_notes(question: MoodleQuestion) -> tuple[str, ...]:
    return (PLAIN_DECIMAL_NOTE,) if kinds.kind_of(question.kind).reads_numbers else ()


def explanation_notes(question: MoodleQuestion, moodle_tries: int) -> tuple[str, ...]:
    notes = [MULTI_NOTE] if kinds.kind_of(question.kind).picks_several else []
    return (*notes, tries_note(question.tries, moodle_tries))


def percent_text(value: float) -> str:
    """A grade as Moodle's import expects it: at most 5 decimals (33.33333, -50)."""
    text = f"{value:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def effective_tolerance(question: Question, key: float) -> float:
    """The absolute tolerance the app grades with (rel_tolerance folded in)."""
    return max(question.tolerance, question.rel_tolerance * abs(key))


def exact_tolerance(key: float) -> float:
    """The margin the app grades a key of tolerance 0 with (grading.numbers_close: relative
    1e-9, at least 1e-12), written out because Moodle's own margin is about 1e-14."""
    return max(1e-9 * abs(key), 1e-12)


def moodle_tolerance(question: Question, key: float) -> float:
    """The absolute tolerance Moodle is given, so it accepts what the app accepts."""
    return effective_tolerance(question, key) or exact_tolerance(key)


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


def moodle_question(question: Question, tries: int = 1) -> MoodleQuestion:
    """The question as Moodle answer rows; numeric keys are computed first."""
    if kinds.of(question).moodle_type is None:  # the export command leaves these out first
        raise ExportError(f"a {question.kind} question has no Moodle question type")
    try:
        resolved = resolve(question)
    except ExpressionError as error:
        raise ExportError(f"answer_from: {error}") from None
    answers: list[MoodleAnswer] = []
    unplaced: list[Mistake] = []
    match resolved.kind:
        case Kind.CHOICE:
            answers = _choice_answers(resolved)
        case Kind.MULTI:
            answers, unplaced = _multi_answers(resolved)
        case Kind.NUMERIC:
            if not math.isfinite(float(resolved.answer)):
                raise ExportError(f"the key {resolved.answer} is not a finite number")
            answers = _numeric_answers(resolved)
        case Kind.TEXT:
            answers.extend(MoodleAnswer(variant, 100.0) for variant in text_keys(resolved))
            for mistake in resolved.mistakes:
                answers.extend(
                    MoodleAnswer(variant, 0.0, mistake.feedback)
                    for variant in _all_variants(mistake.answer)
                )
        case Kind.ORDER | Kind.CODE:  # rows laid out by the kind itself (code: none)
            rows = kinds.of(resolved).lms_rows(resolved) or ()
            answers = [MoodleAnswer(row.text, row.value, row.feedback) for row in rows]
            unplaced = list(resolved.mistakes)  # such rows hold no mistake: carried, not graded
        case _:
            assert_never(resolved.kind)
    return MoodleQuestion(
        kind=resolved.kind,
        prompt=resolved.prompt,
        explanation=resolved.explanation,
        answers=tuple(answers),
        hints=resolved.hints,
        tries=tries,
        unplaced=tuple(unplaced),
    )


def _numeric_answers(resolved: Question) -> list[MoodleAnswer]:
    """The key, the other readings graded right, and each mistake, all with one margin."""
    key = float(resolved.answer)
    tolerance = moodle_tolerance(resolved, key)
    for value in (key, *resolved.also_accepted):
        problem = moodle_number_problem(float(value), tolerance)
        if problem:
            raise ExportError(problem)
    answers = [MoodleAnswer(number_text(key), 100.0, "", tolerance, key)]
    for other in resolved.also_accepted:  # other readings graded right
        answers.append(MoodleAnswer(number_text(other), 100.0, "", tolerance, float(other)))
    for mistake in resolved.mistakes:
        if mistake.answer is None:
            continue
        wrong = float(mistake.answer)
        answers.append(MoodleAnswer(number_text(wrong), 0.0, mistake.feedback, tolerance, wrong))
    return answers


def quiz_questions(quiz: Quiz) -> Iterator[tuple[int, Question, MoodleQuestion]]:
    """Each question numbered from 1 with its Moodle rows; a failure names file and line."""
    for number, question in enumerate(quiz.questions, start=1):
        try:
            yield number, question, moodle_question(question, tries_allowed(quiz, question))
        except ExportError as error:
            where = f"{quiz.path}:{question.line}: question {number}"
            raise ExportError(f"{where}: {error}") from None


# --- text answers: the forms the app accepts, spelled out for Moodle ---------------------------

# Moodle compares a short answer with each of its answers as typed, ignoring only case (and
# only the simple case pairs: ß is not "ss") and spaces at the ends. The app first reads the
# answer through grading.normalise_text. So each key goes out with the forms of it that
# students write and the app accepts, at most MAX_TEXT_VARIANTS per key: lists with and
# without spaces, bare or in ( ) or [ ]; indexes as x0, x[0] or x_0; a whole list of
# numbered names as a range (x0-x3, x0 - x3, x0..x3, x0...x3, x0 to x3, x0 through x3,
# x0–x3, x0…x3, also with the prefix once: x0-3); a single answer with a final full stop;
# "ss" also as ß (up to three of them). What stays out is said in docs/teaching.md (Quizzes in
# Moodle).
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
    return _all_variants(question.answer)


def _all_variants(keys: Iterable[str]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for key in keys:
        out.update(dict.fromkeys(text_variants(str(key))[0]))
    # The listed keys first: Moodle shows the first right answer as "the correct answer".
    listed = [str(key) for key in keys]
    return tuple(dict.fromkeys([*listed, *out]))


def moodle_differences(
    quiz: Quiz, resolved_questions: Sequence[Question] | None = None
) -> tuple[list[ContentError], list[ContentError]]:
    """(refused, named): keys Moodle cannot grade as the app does, and questions whose
    accepted answers Moodle cannot all match, each at its question's line.

    Pass the questions as answers.resolve_quiz gave them (keys computed under the file's
    work budget); without them, questions whose key is an expression are not looked at.
    """
    refused: list[ContentError] = []
    named: list[ContentError] = []
    questions = resolved_questions if resolved_questions is not None else quiz.questions
    for number, resolved in enumerate(questions, start=1):
        where = f"question {number}: in Moodle"
        match resolved.kind:
            case Kind.NUMERIC:
                if resolved.answer is None:
                    continue  # answer_from, not computed here
                key = float(resolved.answer)
                if not math.isfinite(key):
                    continue
                for value in (key, *resolved.also_accepted):
                    problem = moodle_number_problem(float(value), moodle_tolerance(resolved, key))
                    if problem:
                        refused.append(
                            ContentError(quiz.path, resolved.line, f"{where}: {problem}")
                        )
            case Kind.TEXT:
                beyond = [why for key in resolved.answer for why in text_variants(str(key))[1]]
                if beyond:
                    reasons = "; ".join(dict.fromkeys(beyond))
                    message = f"{where}, answers the app accepts are wrong: {reasons}"
                    named.append(ContentError(quiz.path, resolved.line, message))
            case Kind.CHOICE | Kind.MULTI | Kind.CODE | Kind.ORDER:
                pass  # options and lines are given to Moodle as the app has them
            case _:
                assert_never(resolved.kind)
    return refused, named


def multi_weights(right: int, wrong: int) -> tuple[float, float]:
    """Right options share +100 %; wrong ones share -100 %, so ticking everything scores 0."""
    return 100.0 / right, (-100.0 / wrong if wrong else 0.0)


def _multi_answers(
    question: Question[frozenset[int]],
) -> tuple[list[MoodleAnswer], list[Mistake[frozenset[int]]]]:
    """Every option weighted (multi_weights), with the feedback Moodle can place."""
    key_set = frozenset(question.answer)
    feedback: dict[int, str] = {}
    unplaced: list[Mistake[frozenset[int]]] = []
    for mistake in question.mistakes:
        extra = frozenset(mistake.answer) - key_set
        # Moodle shows an option's feedback whenever it is ticked: that matches the
        # app's "the key plus this wrong option" and nothing else.
        if len(extra) == 1 and key_set <= mistake.answer and min(extra) not in feedback:
            feedback[min(extra)] = mistake.feedback
        else:
            unplaced.append(mistake)
    right, wrong = multi_weights(len(key_set), len(question.options) - len(key_set))
    return _option_answers(question, key_set, (right, wrong), feedback), unplaced


def _choice_answers(question: Question[int]) -> list[MoodleAnswer]:
    """The key at 100 %, the other options at 0 %, each mistake's feedback on its option."""
    feedback = {mistake.answer: mistake.feedback for mistake in question.mistakes}
    return _option_answers(question, frozenset({question.answer}), (100.0, 0.0), feedback)


def _option_answers(
    question: Question,
    key_set: frozenset[int],
    weights: tuple[float, float],
    feedback: dict[int, str],
) -> list[MoodleAnswer]:
    """One row per option, in the file's order: weighted (right, wrong), with its feedback."""
    right, wrong = weights
    return [
        MoodleAnswer(option, right if number in key_set else wrong, feedback.get(number, ""))
        for number, option in enumerate(question.options, start=1)
    ]
