"""Quizzes as Moodle XML, built with ElementTree so every text is escaped by the XML writer.

Prompts, options and feedback are the app's Markdown turned into HTML by markdown-it
with raw HTML switched off, so `<script>` in a quiz arrives in Moodle as the text
"<script>", never as a tag. Hints go in <hint> (Moodle shows one per extra try in
interactive mode), the explanation in <generalfeedback>.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt

from tui_course.classroom.lms_answers import (
    MoodleQuestion,
    number_text,
    percent_text,
    quiz_questions,
)
from tui_course.content.models import Kind, Quiz

_MOODLE_TYPE = {
    Kind.CHOICE: "multichoice",
    Kind.MULTI: "multichoice",
    Kind.NUMERIC: "numerical",
    Kind.TEXT: "shortanswer",
}
# Characters XML 1.0 cannot hold at all (ElementTree would write them and break the file).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@cache
def _markdown() -> MarkdownIt:
    # commonmark with html off: raw HTML is escaped; images off so no text loads a remote file.
    return MarkdownIt("commonmark", {"html": False}).disable("image")


def html(text: str) -> str:
    """Markdown as HTML with any raw HTML in it shown as text."""
    return str(_markdown().render(_xml_text(text))).strip()


def inline_html(text: str) -> str:
    """An option's Markdown as HTML without a wrapping paragraph."""
    return str(_markdown().renderInline(_xml_text(text))).strip()


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("", text)


def _text_element(parent: ET.Element, tag: str, text: str, fmt: str = "html") -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = _xml_text(text)
    return element


def export_moodle_xml(quizzes: Sequence[Quiz]) -> str:
    """A Moodle XML <quiz>: a category per quiz (attn-tui/<quiz id>), then its questions."""
    root = ET.Element("quiz")
    for quiz in quizzes:
        category = ET.SubElement(root, "question", {"type": "category"})
        ET.SubElement(
            ET.SubElement(category, "category"), "text"
        ).text = f"$course$/top/attn-tui/{quiz.id}"
        _text_element(category, "info", html(quiz.intro or quiz.title))
        for number, _, moodle in quiz_questions(quiz):
            root.append(_question(f"{quiz.id} q{number}", moodle))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _question(name: str, question: MoodleQuestion) -> ET.Element:
    element = ET.Element("question", {"type": _MOODLE_TYPE[question.kind]})
    ET.SubElement(ET.SubElement(element, "name"), "text").text = _xml_text(name)
    _text_element(element, "questiontext", html(question.prompt))
    _text_element(element, "generalfeedback", html(question.explanation))
    ET.SubElement(element, "defaultgrade").text = "1"
    ET.SubElement(element, "penalty").text = "0.3333333"
    ET.SubElement(element, "hidden").text = "0"
    if question.kind in (Kind.CHOICE, Kind.MULTI):
        single = "true" if question.kind is Kind.CHOICE else "false"
        ET.SubElement(element, "single").text = single
        # Explanations may say "option 2": keep the app's order and numbering.
        ET.SubElement(element, "shuffleanswers").text = "false"
        ET.SubElement(element, "answernumbering").text = "123"
        for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
            _text_element(element, tag, "")
    elif question.kind is Kind.TEXT:
        ET.SubElement(element, "usecase").text = "0"
    for answer in question.answers:
        attributes = {"fraction": percent_text(answer.percent)}
        if question.kind is Kind.TEXT:
            # Compared as typed: plain text, with Moodle's * wildcard escaped.
            row = _text_element(element, "answer", answer.text.replace("*", "\\*"), "")
            row.attrib.update(attributes | {"format": "moodle_auto_format"})
        elif question.kind is Kind.NUMERIC:
            row = _text_element(element, "answer", answer.text, "moodle_auto_format")
            row.attrib.update(attributes)
        else:
            row = _text_element(element, "answer", inline_html(answer.text))
            row.attrib.update(attributes)
        _text_element(row, "feedback", html(answer.feedback) if answer.feedback else "")
        if question.kind is Kind.NUMERIC:
            ET.SubElement(row, "tolerance").text = number_text(answer.tolerance)
    if question.kind is Kind.NUMERIC:
        for tag, value in (("unitgradingtype", "0"), ("unitpenalty", "0"), ("showunits", "3")):
            ET.SubElement(element, tag).text = value
        ET.SubElement(element, "unitsleft").text = "0"
    for hint in question.hints:
        _text_element(element, "hint", html(hint))
    return element
