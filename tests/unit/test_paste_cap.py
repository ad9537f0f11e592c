"""A bracketed paste is cut before Textual's parser reads it one character at a time."""

from __future__ import annotations

import hashlib
import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from tui_course.ui.paste_cap import (
    PASTE_END,
    PASTE_START,
    SEQUENCE_CHARS,
    CappedPasteParser,
    PasteCap,
)

# LinuxDriver.run_input_thread of the pinned textual, which CappedPasteDriver copies.
COPIED_FROM = "d796af6d69db337d6fa6bd463984f7d17188d991dbb22f60efb92a8a9619507c"


def pieces(text: str, size: int) -> list[str]:
    return [text[at : at + size] for at in range(0, len(text), size)] or [""]


def through(parser: XTermParser, chunks: list[str]) -> list[events.Event]:
    found: list[events.Event] = []
    for chunk in chunks:
        found.extend(parser.feed(chunk))  # type: ignore[arg-type]
    return found


def pastes(found: list[events.Event]) -> list[str]:
    return [event.text for event in found if isinstance(event, events.Paste)]


def keys(found: list[events.Event]) -> str:
    return "".join(event.character or "" for event in found if isinstance(event, events.Key))


@pytest.mark.parametrize("size", [1, 3, 5, 7, 4096])
def test_a_paste_under_the_limit_is_passed_on_whole_in_any_pieces(size: int) -> None:
    stream = f"ab{PASTE_START}hello world{PASTE_END}cd"
    assert pastes(through(CappedPasteParser(limit=100), pieces(stream, size))) == ["hello world"]
    assert keys(through(CappedPasteParser(limit=100), pieces(stream, size))) == "abcd"


@pytest.mark.parametrize("size", [1, 2, 5, 6, 7, 13, 4096])
def test_a_paste_over_the_limit_is_cut_there_and_the_keys_after_it_still_arrive(
    size: int,
) -> None:
    stream = f"a{PASTE_START}{'word ' * 100}{PASTE_END}z"
    parser = CappedPasteParser(limit=42)
    found = through(parser, pieces(stream, size))
    assert pastes(found) == [("word " * 100)[:42]]
    assert keys(found) == "az"  # the paste ended: typing goes on
    assert parser.paste_cap.cut == 1
    assert not parser.paste_cap.in_paste


def test_two_pastes_are_each_cut_on_their_own() -> None:
    stream = f"{PASTE_START}{'x' * 50}{PASTE_END}k{PASTE_START}{'y' * 5}{PASTE_END}"
    found = through(CappedPasteParser(limit=10), pieces(stream, 4))
    assert pastes(found) == ["x" * 10, "y" * 5]
    assert keys(found) == "k"


def test_the_cut_never_leaves_the_parser_inside_an_escape_sequence() -> None:
    body = "a" * 8 + "\x1b[1;2" + "b" * 40  # an ESC sequence across the cut point
    cap = PasteCap(limit=10)
    passed = cap.filter(PASTE_START + body + PASTE_END + "q")
    assert passed == PASTE_START + "a" * 8 + PASTE_END + "q"
    found = through(CappedPasteParser(limit=10), [PASTE_START + body + PASTE_END + "q"])
    assert keys(found) == "q"


def test_a_megabyte_paste_passes_on_only_the_limit() -> None:
    cap = PasteCap(limit=64 * 1024)
    stream = PASTE_START + "word " * 200_000 + PASTE_END
    passed = "".join(cap.filter(chunk) for chunk in pieces(stream, 4096))
    assert len(passed) == len(PASTE_START) + 64 * 1024 + len(PASTE_END)
    assert passed.endswith(PASTE_END)


def test_text_without_pastes_passes_untouched() -> None:
    cap = PasteCap(limit=5)
    stream = "plain typing \x1b[A\x1b[B and more" * 10
    assert "".join(cap.filter(chunk) for chunk in pieces(stream, 3)) == stream


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(alphabet="ab\x1b[", max_size=8),
    body=st.text(alphabet="xy \x1b[~", max_size=60),
    after=st.text(alphabet="cd", max_size=5),
    limit=st.integers(0, 70),
    size=st.integers(1, 9),
)
def test_whatever_the_pieces_the_end_marker_always_gets_through(
    before: str, body: str, after: str, limit: int, size: int
) -> None:
    """However the stream is split and wherever the limit falls, what passes holds the
    end marker after the start (the parser never stays in a paste), and at most `limit`
    characters of the body. (A body holding a marker of its own ends the paste there, as
    in the terminal.)"""
    body = body.replace(PASTE_START, "").replace(PASTE_END, "")
    cap = PasteCap(limit=limit)
    stream = before + PASTE_START + body + PASTE_END + after
    passed = "".join(cap.filter(chunk) for chunk in pieces(stream, size))
    start = passed.find(PASTE_START)
    end = passed.find(PASTE_END, start + len(PASTE_START))
    assert start >= 0 and end > start
    assert end - start - len(PASTE_START) <= limit
    assert passed.endswith(PASTE_END + after)
    assert not cap.in_paste and not cap.dropping


def test_the_cut_lands_within_one_sequence_of_the_limit() -> None:
    cap = PasteCap(limit=100)
    passed = cap.filter(PASTE_START + "\x1b" + "z" * 200 + PASTE_END)
    assert len(passed) >= len(PASTE_START) + 1 + len(PASTE_END)  # the ESC is far enough back
    assert 100 - SEQUENCE_CHARS <= len(passed) - len(PASTE_START) - len(PASTE_END) <= 100


def test_the_driver_copies_the_pinned_textuals_input_loop() -> None:
    """CappedPasteDriver.run_input_thread is LinuxDriver's with another parser class: if a
    new textual changes the original, the copy must be looked at again."""
    source = inspect.getsource(LinuxDriver.run_input_thread)
    assert hashlib.sha256(source.encode()).hexdigest() == COPIED_FROM
