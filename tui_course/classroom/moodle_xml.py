"""Quizzes as Moodle XML, built with ElementTree so every text is escaped by the XML writer.

Prompts and feedback are the app's Markdown as HTML from lms_answers.safe_html (raw HTML,
images and links other than http/https stay text), options are escaped plain text as the
app shows them. Hints go in <hint> (Moodle shows one per extra try in interactive mode),
the explanation in <generalfeedback>, with a sentence where Moodle grades differently.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import assert_never

from tui_course.classroom.lms_answers import (
    ExportError,
    MoodleQuestion,
    explanation_notes,
    percent_text,
    plain_html,
    prompt_notes,
    quiz_questions,
    safe_html,
    with_notes,
    xml_text,
)
from tui_course.content import kinds
from tui_course.content.kinds.lms import LmsForm, LmsRow, MoodleField
from tui_course.content.kinds.numeric_margins import number_text
from tui_course.content.models import Quiz


def html(text: str) -> str:
    """Markdown as HTML with any raw HTML in it shown as text."""
    return safe_html(text)


_xml_text = xml_text


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
    kind = kinds.kind_of(question.kind)
    if kind.moodle_type is None:  # the export command leaves these out first
        raise ExportError(f"a {question.kind} question has no Moodle question type")
    element = ET.Element("question", {"type": kind.moodle_type})
    ET.SubElement(ET.SubElement(element, "name"), "text").text = _xml_text(name)
    prompt = with_notes(html(question.prompt), prompt_notes(question))
    _text_element(element, "questiontext", prompt)
    # Interactive mode: one try, plus one per hint.
    notes = explanation_notes(question, len(question.hints) + 1)
    _text_element(element, "generalfeedback", with_notes(html(question.explanation), notes))
    ET.SubElement(element, "defaultgrade").text = "1"
    ET.SubElement(element, "penalty").text = "0.3333333"
    ET.SubElement(element, "hidden").text = "0"
    fields = kind.moodle_fields()
    _add_fields(element, (field for field in fields if not field.after_answers))
    for answer in question.answers:
        _answer_row(element, kind.lms_form, answer)
    _add_fields(element, (field for field in fields if field.after_answers))
    for hint in question.hints:
        _text_element(element, "hint", html(hint))
    return element


def _add_fields(element: ET.Element, fields: Iterable[MoodleField]) -> None:
    for field in fields:
        if field.html:
            _text_element(element, field.tag, field.value)
        else:
            ET.SubElement(element, field.tag).text = field.value


def _answer_row(element: ET.Element, form: LmsForm, answer: LmsRow) -> None:
    attributes = {"fraction": percent_text(answer.value)}
    match form:
        case LmsForm.TYPED:
            # Compared as typed: plain text, with Moodle's * wildcard escaped.
            row = _text_element(element, "answer", answer.text.replace("*", "\\*"), "")
            row.attrib.update(attributes | {"format": "moodle_auto_format"})
        case LmsForm.NUMBER:
            row = _text_element(element, "answer", answer.text, "moodle_auto_format")
            row.attrib.update(attributes)
        case LmsForm.SHOWN:  # text shown as it is: escaped HTML
            row = _text_element(element, "answer", plain_html(answer.text))
            row.attrib.update(attributes)
        case _:
            assert_never(form)
    _text_element(row, "feedback", html(answer.feedback) if answer.feedback else "")
    if form is LmsForm.NUMBER:
        ET.SubElement(row, "tolerance").text = number_text(answer.tolerance)
