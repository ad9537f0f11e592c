"""Raw HTML in a lesson or a quiz is shown as the text it is (docs/authoring.md: <eos>, <pad>,
<b>)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from tests.ui.conftest import running, screen_text
from tui_course.ui.app import CourseApp

LESSON = """+++
id = "tokens"
title = "Tokens"
order = 1
+++

The decoder appends <eos> and pads with <pad>.

<div>A block of HTML</div> and <b>bold tags</b> stay visible.
"""

QUIZ = """id = "tokens-quiz"
title = "Tokens quiz"

[[question]]
kind = "choice"
prompt = "What does the decoder append? <eos> or <b>this</b>?"
options = ["<eos>", "<pad>"]
answer = 1
explanation = "It appends <eos>."
"""


def _course(root: Path) -> Path:
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "lessons" / "tokens.md").write_text(LESSON, encoding="utf-8")
    (root / "quizzes" / "tokens-quiz.toml").write_text(QUIZ, encoding="utf-8")
    return root


async def _screen_with(pilot: Pilot[None], wanted: str) -> str:
    """The screen once `wanted` is drawn (Markdown mounts its blocks over a few frames)."""
    for _ in range(300):
        await pilot.pause()
        text = screen_text(pilot.app)
        if wanted in text:
            return text
        await pilot.pause(0.02)
    return screen_text(pilot.app)


async def test_lesson_shows_tags_as_text(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("tokens", content=_course(tmp_path / "content"))
    async with running(app, size=(100, 30)) as pilot:
        text = await _screen_with(pilot, "appends <eos>")
        assert "The decoder appends <eos> and pads with <pad>." in text
        assert "<div>A block of HTML</div> and <b>bold tags</b> stay visible." in text


async def test_quiz_prompt_options_and_explanation_show_tags_as_text(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("tokens-quiz", content=_course(tmp_path / "content"))
    async with running(app, size=(100, 30)) as pilot:
        await _screen_with(pilot, "Start")
        await pilot.press("enter")
        text = await _screen_with(pilot, "append? <eos>")
        assert "What does the decoder append? <eos> or <b>this</b>?" in text
        assert "<pad>" in text  # the second option, as typed
        await pilot.press("1", "enter")
        text = await _screen_with(pilot, "It appends <eos>.")
        assert "It appends <eos>." in text


def test_plain_mode_reads_the_same_text() -> None:
    """Plain mode parses with the same parser: tags are words there too, and an HTML-looking
    line is a paragraph like any other (its emphasis read as the Markdown view shows it)."""
    from tui_course.plain.markdown import markdown_lines

    lines = markdown_lines(LESSON.split("+++")[2])
    assert "The decoder appends <eos> and pads with <pad>." in lines
    assert "<div>A block of HTML</div> and <b>bold tags</b> stay visible." in lines
    assert markdown_lines("<div>*x*</div>") == ["<div>x</div>"]


def test_the_parser_keeps_tables_and_strikethrough_and_leaves_bare_addresses_as_words() -> None:
    """gfm-like less raw HTML and linkify: a bare address is words (a written link is still a
    link), and tables and ~~strikethrough~~ still parse as blocks and marks."""
    from tui_course.content.markdown import markdown_parser, reading_parser

    parser = markdown_parser()
    assert not parser.options["linkify"]
    tokens = parser.parse("See https://example.org or [this](https://example.org).\n")
    inline = [child.type for child in tokens[1].children or []]
    assert inline.count("link_open") == 1  # the written one only
    assert tokens[1].children is not None and tokens[1].children[0].content.startswith(
        "See https://"
    )
    table = parser.parse("| a | b |\n|---|---|\n| 1 | 2 |\n~~gone~~\n")
    assert [t.type for t in table][:2] == ["table_open", "thead_open"]
    struck = parser.parse("~~gone~~\n")[1].children or []
    assert [t.type for t in struck] == ["s_open", "text", "s_close"]
    assert reading_parser().parse("<eos>\n")[1].content == "<eos>"
