"""What GIFT and Moodle XML share: a quiz question laid out as Moodle grades it.

Moodle knows answers with a grade fraction and feedback; the app knows keys,
tolerances and targeted mistakes. Each kind makes that translation itself
(QuestionKind.lms_answers: its text forms and numeric margins live beside it in
content/kinds), and `moodle_question` asks it once so both writers give the same grades
and know which mistakes have no place there. Both writers also share the one HTML
renderer (safe_html: Moodle shows question text uncleaned) and the notes said where Moodle
grades differently (docs/teaching.md: Quizzes in Moodle).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from markdown_it import MarkdownIt

from tui_course.answers import resolve
from tui_course.content import kinds
from tui_course.content.errors import ContentError
from tui_course.content.kinds import tries_allowed
from tui_course.content.kinds.lms import ExportError as ExportError
from tui_course.content.kinds.lms import LmsRow
from tui_course.content.models import Kind, Mistake, Question, Quiz
from tui_course.maths.expression import ExpressionError

# Question fields the LMS formats have no syntax for. GIFT keeps them in a comment
# Moodle ignores; import reads back only the names the quiz loader accepts (quizzes.py).
CARRIED_FIELDS = ("hints", "tries")


@dataclass(frozen=True)
class MoodleQuestion:
    kind: Kind
    prompt: str
    explanation: str
    answers: tuple[LmsRow, ...]
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


def moodle_question(question: Question, tries: int = 1) -> MoodleQuestion:
    """The question as Moodle answer rows, laid out by its kind; numeric keys are computed
    first."""
    if kinds.of(question).moodle_type is None:  # the export command leaves these out first
        raise ExportError(f"a {question.kind} question has no Moodle question type")
    try:
        resolved = resolve(question)
    except ExpressionError as error:
        raise ExportError(f"answer_from: {error}") from None
    answers = kinds.of(resolved).lms_answers(resolved)
    return MoodleQuestion(
        kind=resolved.kind,
        prompt=resolved.prompt,
        explanation=resolved.explanation,
        answers=answers.rows,
        hints=resolved.hints,
        tries=tries,
        unplaced=answers.unplaced,
    )


def quiz_questions(quiz: Quiz) -> Iterator[tuple[int, Question, MoodleQuestion]]:
    """Each question numbered from 1 with its Moodle rows; a failure names file and line."""
    for number, question in enumerate(quiz.questions, start=1):
        try:
            yield number, question, moodle_question(question, tries_allowed(quiz, question))
        except ExportError as error:
            where = f"{quiz.path}:{question.line}: question {number}"
            raise ExportError(f"{where}: {error}") from None


def moodle_differences(
    quiz: Quiz, resolved_questions: Sequence[Question] | None = None
) -> tuple[list[ContentError], list[ContentError]]:
    """(refused, named): keys Moodle cannot grade as the app does, and questions whose
    accepted answers Moodle cannot all match, each at its question's line (each kind says
    its own: QuestionKind.moodle_gaps).

    Pass the questions as answers.resolve_quiz gave them (keys computed under the file's
    work budget); without them, questions whose key is an expression are not looked at.
    """
    refused: list[ContentError] = []
    named: list[ContentError] = []
    questions = resolved_questions if resolved_questions is not None else quiz.questions
    for number, resolved in enumerate(questions, start=1):
        where = f"question {number}: in Moodle"
        gaps = kinds.of(resolved).moodle_gaps(resolved)
        for problem in gaps.refused:
            refused.append(ContentError(quiz.path, resolved.line, f"{where}: {problem}"))
        if gaps.marked_wrong:
            reasons = "; ".join(gaps.marked_wrong)
            message = f"{where}, answers the app accepts are wrong: {reasons}"
            named.append(ContentError(quiz.path, resolved.line, message))
    return refused, named
