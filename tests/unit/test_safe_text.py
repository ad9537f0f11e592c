"""The one rule for untrusted text: shown as text, never obeyed by Textual or the terminal."""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest
from textual.content import Content

from tui_course.content.errors import ContentError
from tui_course.content.tomlfile import parse_toml
from tui_course.text.safe import (
    clean,
    clean_deep,
    escape_markup,
    markup_line,
    one_line,
    path_text,
    plain_text,
    visible,
)

OSC_TITLE = "\x1b]0;pwned\x1b\\"
OSC_CLIPBOARD = "\x1b]52;c;aGVsbG8=\x07"
CSI_CLEAR = "\x1b[2J"
CSI_HUGE = "\x1b[999999999;999999999H"


@pytest.mark.parametrize("attack", [OSC_TITLE, OSC_CLIPBOARD, CSI_CLEAR, CSI_HUGE, "\x9b2J"])
def test_escape_sequences_lose_their_introducer(attack: str) -> None:
    shown = clean(f"before{attack}after")
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert shown.startswith("before") and shown.endswith("after")


def test_newlines_and_tabs_stay_other_controls_go() -> None:
    assert clean("a\tb\r\nc\rd\u2028e\x00f\x7fg") == "a\tb\nc\nd\nefg"
    assert one_line("a\tb\nc") == "a b c"


def test_bidi_and_zero_width_characters_are_removed() -> None:
    assert clean("abc\u202edef") == "abcdef"
    assert clean("a\u2066b\u2069c\u200bd\u200de\u2060f\ufeffg") == "abcdefg"
    assert clean("注意力 🤖") == "注意力 🤖"  # CJK and emoji are text, not controls


def test_every_format_and_control_character_is_covered() -> None:
    """The hard-coded ranges match this Python's Unicode tables (Cc except tab/newline, Cf)."""
    missed = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf")
        and chr(code) not in "\t\n"
        and clean(chr(code)) != ""
        and chr(code) != "\r"
    ]
    assert missed == []


def test_surrogates_from_undecodable_file_names_become_replacement_characters() -> None:
    name = b"caf\xe9.md".decode("utf-8", "surrogateescape")
    shown = path_text(name)
    assert shown == "caf\ufffd.md"
    shown.encode("utf-8")  # printable on a UTF-8 terminal


@pytest.mark.parametrize(
    "text",
    [
        "[@click=app.quit]x",
        "Closing [/] tag",
        "[link=file:///etc/passwd]x[/link]",
        "[$accent]y",
        "[A]x",
        "a\\[b]",
        "end\\",
        "[@click=app.screenshot('f','/tmp')]z",
    ],
)
def test_escaped_markup_shows_literally_in_textual(text: str) -> None:
    content = Content.from_markup(escape_markup(text))
    assert content.plain == text
    assert not content.spans  # no style, link or action survives


def test_escape_round_trips_random_bracket_soup() -> None:
    alphabet = "[]\\/@$ab=.'()#:"
    chooser = random.Random(8)
    for _ in range(3000):
        text = "".join(chooser.choice(alphabet) for _ in range(chooser.randint(0, 14)))
        assert Content.from_markup(escape_markup(text)).plain == text


def test_markup_line_is_one_clean_line() -> None:
    assert Content.from_markup(markup_line("a\n[/]\x1b[2J\u202e")).plain == "a [/][2J"


def test_keys_are_cleaned_like_values() -> None:
    parsed = clean_deep({"ti\x1btle": ["x\x1b]0;t\x07", {"\u202ek": 1.5}]})
    assert parsed == {"title": ["x]0;t", {"k": 1.5}]}


def test_content_errors_print_as_one_clean_line() -> None:
    error = ContentError(f"lessons/{OSC_TITLE}.md", 3, f"unknown key '{CSI_CLEAR}'\nnext")
    assert str(error) == "lessons/]0;pwned\\.md:3: unknown key '[2J' next"
    assert plain_text(error) == str(error)


def test_visible_spells_out_what_clean_would_hide() -> None:
    assert visible("ti\u200btle\nx\x1b") == "ti\\u200btle x\\u001b"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('title = "a"\n"ti\\u200btle" = "b"', "f.toml: key 'ti\\u200btle' holds control"),
        ('a = [{ "\\u202ek" = 1 }]', "f.toml: key '\\u202ek' holds control"),
        ('[t]\n"\\u001b]0;x" = 1', "f.toml: key '\\u001b]0;x' holds control"),
    ],
)
def test_keys_hiding_characters_are_refused_not_merged(text: str, message: str) -> None:
    """Cleaned, "ti<ZWSP>tle" would silently replace "title"."""
    with pytest.raises(ContentError) as raised:
        parse_toml(text, "f.toml")
    assert str(raised.value).startswith(message)
