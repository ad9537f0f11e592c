"""What Moodle shows of an export holds no tag, attribute or link scheme the text put there.

Moodle shows question text without cleaning it, so the exports are read here the way
Moodle reads them: GIFT through a port of qformat_gift's own field splitting (escapes,
`[format]` tags, `{...}`, `~ = #`, `####`), each field rendered as its format says, and
`[markdown]` by Python-Markdown with its "extra" extension (the family of Moodle's GIFT
Markdown, PHP Markdown Extra); Moodle XML by its format="html" fields. Every result goes
through an HTML parser and must stay inside ALLOWED; so must each field read once more
as Markdown Extra, in case a teacher switches its format in Moodle.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser

import markdown as python_markdown
import pytest

from tui_course.classroom.gift.export import export_gift
from tui_course.classroom.gift.html_text import html_to_text
from tui_course.classroom.moodle_xml import export_moodle_xml
from tui_course.content.models import Kind, Mistake, Question, Quiz

# Tags the writers' CommonMark renderer makes, with the attributes each may carry.
ALLOWED: dict[str, set[str]] = {
    **{tag: set() for tag in ("p", "em", "strong", "pre", "br", "hr", "blockquote")},
    "code": {"class"},  # a fence's language: one word after "language-", escaped
    **{tag: set() for tag in ("ul", "li", "h1", "h2", "h3", "h4", "h5", "h6")},
    "ol": {"start"},
    "a": {"href", "title"},
}
SCHEMES = ("http://", "https://")

# The cases first, then the usual ways round a filter.
HOSTILE = (
    "[click](javascript:alert(1))",
    "`a\n\n<img src=x onerror=alert(1)>`",  # a code span across a blank line
    "\\`<img src=x onerror=alert(2)>`",  # after an escaped backtick
    "\\\\`<img src=x onerror=alert(3)>`",
    "<script>alert(4)</script>",
    "![chart](http://evil.example/chart.png)",
    "![x](https://evil.example/x.png 'title')",
    "[x](JaVaScRiPt:alert(5))",
    "[x](&#106;avascript:alert(6))",
    "[x](java\nscript:alert(7))",
    "<javascript:alert(8)>",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCg5KTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(10))",
    "[x](//evil.example/relative)",
    "[ref]\n\n[ref]: javascript:alert(11)",
    '[x](http://ok.example/" onmouseover="alert(12))',
    '<a href="javascript:alert(13)">x</a>',
    "<svg onload=alert(14)>",
    "<iframe src=//evil.example></iframe>",
    "```html\n<script>alert(15)</script>\n```",
    "    <script>alert(16)</script>",
    "# Heading {onclick=alert(17)}",
    '<div markdown="1">*x*<img src=x onerror=alert(18)></div>',
    "&lt;script&gt;alert(19)&lt;/script&gt;",
    "<!-- x --><style>body{display:none}</style>",
    "`` ` <b onmouseover=alert(20)>`` x",
    "x<b\nonmouseover=alert(21)>y</b>",
    '<https://ok.example/"onmouseover=alert(22)>',
    "2*3*4 = 24 and __init__ and\n\n1. fit",
)


def _quiz() -> Quiz:
    """Every field that Moodle shows holds the whole corpus, one case per paragraph."""
    text = "\n\n".join(HOSTILE)
    options = tuple(case.replace("\n", " ") for case in HOSTILE[:8])
    questions = (
        Question(
            Kind.CHOICE,
            text,
            text,
            1,
            options=options,
            answer=1,
            hints=(text,),
            mistakes=tuple(Mistake(n, text) for n in range(2, 5)),
        ),
        Question(
            Kind.MULTI,
            text,
            text,
            2,
            options=options,
            answer=frozenset({1, 2}),
            mistakes=(Mistake(frozenset({1, 2, 3}), text),),
        ),
        Question(Kind.NUMERIC, text, text, 3, answer=0.5, mistakes=(Mistake(2.0, text),)),
        Question(
            Kind.TEXT,
            text,
            text,
            4,
            answer=("<b>x</b>", "[x](javascript:alert(1))"),
            mistakes=(Mistake(("<img src=x onerror=alert(1)>",), text),),
        ),
    )
    return Quiz("hostile", "<script>alert(0)</script>", "hostile.toml", questions, intro=text)


# --- Moodle's GIFT reader (question/format/gift/format.php), the parts that find fields ----

_PRE = {"\\:": "&&058;", "\\#": "&&035;", "\\=": "&&061;", "\\{": "&&123;", "\\}": "&&125;"}
_PRE |= {"\\~": "&&126;", "\\n": "&&010"}
_POST = {"&&058;": ":", "&&035;": "#", "&&061;": "=", "&&123;": "{", "&&125;": "}"}
_POST |= {"&&126;": "~", "&&010": "\n"}
FORMATS = {"moodle", "html", "plain", "markdown"}


def _escapedchar_pre(text: str) -> str:
    text = text.replace("\\\\", "&&092;")
    for escaped, placeholder in _PRE.items():
        text = text.replace(escaped, placeholder)
    return text.replace("&&092;", "\\")


def _with_format(text: str, default: str) -> tuple[str, str]:
    """parse_text_with_format: a leading [name] names the format; then escapedchar_post."""
    fmt = default
    if text.startswith("[") and "]" in text:
        name = text[1 : text.index("]")]
        if name in FORMATS:
            fmt, text = name, text[text.index("]") + 1 :]
    for placeholder, char in _POST.items():
        text = text.replace(placeholder, char)
    return fmt, text.strip()


def _comment_split(answer: str, default: str) -> list[tuple[str, str]]:
    """commentparser: the answer and its feedback, each with its own format."""
    head, _, feedback = answer.partition("#")
    return [_with_format(head.strip(), default), _with_format(feedback.strip(), default)]


def moodle_gift_fields(gift: str) -> Iterator[tuple[str, str, str]]:
    """(role, format, text) of every text Moodle shows from a GIFT file."""
    for block in gift.split("\n\n"):
        lines = [line for line in block.split("\n") if not line.strip().startswith("//")]
        text = _escapedchar_pre("\n".join(lines).strip())
        if not text or text.startswith("$CATEGORY:"):
            continue
        if text.startswith("::"):
            text = text[2:].split("::", 1)[1]
        start, finish = text.index("{"), text.index("}")
        answers = text[start + 1 : finish].strip()
        question_format, question_text = _with_format(text[:start].strip(), "moodle")
        yield "questiontext", question_format, question_text
        if "####" in answers:
            cut = answers.rindex("####")
            yield "generalfeedback", *_with_format(answers[cut + 4 :].strip(), question_format)
            answers = answers[:cut].strip()
        if answers.startswith("#"):  # numerical: only feedback is shown
            for piece in answers[1:].split("=")[1:]:
                yield "feedback", *_comment_split(piece.strip(), question_format)[1]
        elif "~" in answers:  # multichoice
            for piece in answers.replace("=", "~=").split("~")[1:]:
                piece = piece.strip().lstrip("=")
                if piece.startswith("%"):
                    piece = piece[piece.index("%", 1) + 1 :]
                (answer_format, answer), feedback = _comment_split(piece, question_format)
                yield "answer", answer_format, answer
                yield "feedback", *feedback
        else:  # shortanswer: the key is compared, and shown escaped (s()); its feedback shows
            for piece in answers.split("=")[1:]:
                yield "feedback", *_comment_split(piece.strip(), question_format)[1]


def shown_html(fmt: str, text: str) -> str:
    """What a browser gets from a field of this format (the worst case for moodle/plain)."""
    if fmt == "markdown":
        return str(python_markdown.markdown(text, extensions=["extra"]))
    return text  # html as it is; "moodle" passes HTML through too


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def violations(html: str) -> list[str]:
    """Each tag, attribute or link scheme in the HTML beyond the allow-list."""
    parser = _Tags()
    parser.feed(html)
    parser.close()
    found = []
    for tag, attrs in parser.found:
        if tag not in ALLOWED:
            found.append(f"<{tag}>")
            continue
        for name, value in attrs:
            if name not in ALLOWED[tag]:
                found.append(f"<{tag} {name}>")
            elif name == "href" and not (value or "").lower().startswith(SCHEMES):
                found.append(f"<{tag} href={value!r}>")
            elif name == "class" and not re.fullmatch(r"language-[^\s\"'<>]*", value or ""):
                found.append(f"<{tag} class={value!r}>")
    return found


def test_the_checker_catches_the_corpus_as_markdown_extra_renders_it() -> None:
    """The control: each case is live HTML, an unsafe link or a remote image when the text
    goes to Moodle as [markdown] (what the GIFT export did before)."""
    harmless = [case for case in HOSTILE if not violations(shown_html("markdown", case))]
    # Safe even as Markdown Extra; kept for the writers' side (code spans, entities, links).
    assert harmless == [
        "\\\\`<img src=x onerror=alert(3)>`",
        '[x](http://ok.example/" onmouseover="alert(12))',
        "```html\n<script>alert(15)</script>\n```",
        "    <script>alert(16)</script>",
        "&lt;script&gt;alert(19)&lt;/script&gt;",
        "`` ` <b onmouseover=alert(20)>`` x",
        '<https://ok.example/"onmouseover=alert(22)>',
        "2*3*4 = 24 and __init__ and\n\n1. fit",
    ]


def test_gift_fields_are_html_and_hold_nothing_beyond_the_allow_list() -> None:
    gift = export_gift([_quiz()])
    fields = list(moodle_gift_fields(gift))
    roles = {role for role, _, _ in fields}
    assert roles == {"questiontext", "generalfeedback", "answer", "feedback"}
    assert len([f for f in fields if f[0] == "questiontext"]) == 4
    for role, fmt, text in fields:
        if text:
            assert fmt == "html", (role, text[:60])
        assert violations(shown_html(fmt, text)) == [], (role, text[:200])
        # Even taken for Markdown Extra (a teacher switching the format): nothing to read.
        assert violations(shown_html("markdown", text)) == [], (role, text[:200])


def test_gift_keeps_the_corpus_visible_as_text() -> None:
    """Safe by showing, not by dropping: the attack text is there for the student to read."""
    gift = export_gift([_quiz()])
    html = next(text for role, _, text in moodle_gift_fields(gift) if role == "questiontext")
    prompt = html_to_text(html)  # what the browser shows
    assert "<script>alert(4)</script>" in prompt
    assert "[click](javascript:alert(1))" in prompt  # a link Moodle must not make
    assert '&#33;<a href="http://evil.example/chart.png">chart</a>' in html  # no <img>
    assert "<img src=x onerror=alert(1)>" in prompt
    assert "2*3*4 = 24 and __init__" not in prompt  # Markdown read by the app's rules...
    options = [text for role, _, text in moodle_gift_fields(gift) if role == "answer"][:8]
    assert html_to_text(options[0]) == "[click](javascript:alert(1))"  # ...options plain
    assert html_to_text(options[2]) == "\\`<img src=x onerror=alert(2)>`"


XML_FIELDS = (
    "questiontext",
    "generalfeedback",
    "answer",
    "answer/feedback",
    "hint",
    "info",
    "correctfeedback",
    "partiallycorrectfeedback",
    "incorrectfeedback",
)


def test_moodle_xml_html_fields_hold_nothing_beyond_the_allow_list() -> None:
    root = ET.fromstring(export_moodle_xml([_quiz()]))
    checked = 0
    for question in root.iter("question"):
        for path in XML_FIELDS:
            for element in question.findall(path):
                fmt = element.attrib.get("format", "")
                text = element.findtext("text") or ""
                if question.attrib["type"] == "shortanswer" and path == "answer":
                    assert fmt == "moodle_auto_format"  # a key: compared, shown escaped
                    continue
                if question.attrib["type"] == "numerical" and path == "answer":
                    continue  # a number
                assert fmt == "html", (path, text[:60])
                assert violations(text) == [], (path, text[:200])
                assert violations(shown_html("markdown", text)) == [], (path, text[:200])
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("case", HOSTILE)
def test_each_case_alone_in_a_prompt(case: str) -> None:
    question = Question(Kind.CHOICE, case, case, 1, options=("a", "b"), answer=1)
    quiz = Quiz("one", "One", "one.toml", (question,))
    for _, fmt, text in moodle_gift_fields(export_gift([quiz])):
        assert violations(shown_html(fmt, text)) == [], text
        assert violations(shown_html("markdown", text)) == [], text
    root = ET.fromstring(export_moodle_xml([quiz]))
    for element in root.iter("questiontext"):
        assert violations(element.findtext("text") or "") == []
        assert violations(shown_html("markdown", element.findtext("text") or "")) == []
