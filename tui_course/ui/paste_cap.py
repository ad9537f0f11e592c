"""A bracketed paste cut at PASTE_CHARS before Textual's parser reads it.

Textual's input parser takes the terminal's bytes one character at a time, so a 1 MB paste
(into a sentence box, or anywhere) cost over a second of CPU on a busy server before any box
could refuse it, and held every pasted character in a list meanwhile. `PasteCap` looks for
the paste markers with `str.find` and passes on at most PASTE_CHARS characters of each
paste's body (and the markers, so the parser still sees where the paste ends); the boxes
then cut or refuse what is left by their own limits, as before. `CappedPasteDriver` is
Textual's Linux driver with that parser; the app uses it where Textual would use the Linux
driver.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from collections.abc import Iterable

from textual.message import Message

from tui_course.ui.textual_compat import LinuxDriver, ParseError, XTermParser, loop_last

# A bracketed paste reaches the app cut to this many characters: past it, a paste costs the
# terminal reader time and memory that no box would keep. (Here, not in tui_course.specs:
# the driver is start-up work, and the parameter table is not.)
PASTE_CHARS = 64 * 1024


PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
# Textual's parser gives up on an escape sequence longer than this: a cut made closer than
# this after an ESC could leave the parser inside a half sequence.
SEQUENCE_CHARS = 32


class PasteCap:
    """What of the terminal's text to pass to the parser: everything, except the part of a
    paste's body beyond `limit` characters. Fed the text in the pieces it was read in; a
    marker split between two pieces is still found."""

    def __init__(self, limit: int = PASTE_CHARS) -> None:
        self.limit = limit
        self.in_paste = False
        self.kept = 0  # body characters passed on, in the paste under way
        self.dropping = False  # the body is over the limit: nothing passes until its end
        self.cut = 0  # pastes cut so far
        self._tail = ""  # the last characters passed on (a start marker may end in the next)
        # Inside a paste, a piece's last characters that may begin the end marker wait for
        # the next piece (outside one they never wait: a lone ESC is the Escape key).
        self._held = ""

    def filter(self, text: str) -> str:
        buffer, self._held = self._held + text, ""
        passed: list[str] = []
        at = 0
        while at < len(buffer):
            if self.dropping:
                at = self._drop(buffer, at, passed)
            elif self.in_paste:
                at = self._body(buffer, at, passed)
            else:
                at = self._outside(buffer, at, passed)
        return "".join(passed)

    def _pass(self, piece: str, passed: list[str]) -> None:
        passed.append(piece)
        self._tail = (self._tail + piece)[-(len(PASTE_START) - 1) :]

    def _outside(self, buffer: str, at: int, passed: list[str]) -> int:
        rest = buffer[at:]
        found = (self._tail + rest).find(PASTE_START)
        if found < 0:
            self._pass(rest, passed)
            return len(buffer)
        end = found + len(PASTE_START) - len(self._tail)  # in `rest`, after the marker
        self._pass(rest[:end], passed)
        self.in_paste, self.kept = True, 0
        return at + end

    def _body(self, buffer: str, at: int, passed: list[str]) -> int:
        rest = buffer[at:]
        found = rest.find(PASTE_END)
        body = rest[:found] if found >= 0 else rest[: len(rest) - _end_marker_begun(rest)]
        room = self.limit - self.kept
        if len(body) <= room:
            self._pass(body, passed)
            self.kept += len(body)
            if found < 0:
                self._held = rest[len(body) :]
                return len(buffer)
            self._pass(PASTE_END, passed)
            self.in_paste = False
            return at + found + len(PASTE_END)
        cut = room
        escape = body.rfind("\x1b", max(cut - SEQUENCE_CHARS, 0), cut)
        if escape >= 0:
            cut = escape  # never leave the parser inside a half escape sequence
        self._pass(body[:cut], passed)
        self.kept += cut
        self.dropping, self.cut = True, self.cut + 1
        return at + cut

    def _drop(self, buffer: str, at: int, passed: list[str]) -> int:
        rest = buffer[at:]
        found = rest.find(PASTE_END)
        if found < 0:
            begun = _end_marker_begun(rest)
            self._held = rest[len(rest) - begun :] if begun else ""
            return len(buffer)
        self._pass(PASTE_END, passed)
        self.dropping = self.in_paste = False
        return at + found + len(PASTE_END)


def _end_marker_begun(text: str) -> int:
    """How many of `text`'s last characters are the start of the end marker."""
    for size in range(min(len(PASTE_END) - 1, len(text)), 0, -1):
        if PASTE_END.startswith(text[-size:]):
            return size
    return 0


class CappedPasteParser(XTermParser):
    """Textual's parser, fed only what PasteCap passes on."""

    def __init__(self, debug: bool = False, limit: int = PASTE_CHARS) -> None:
        super().__init__(debug)
        self.paste_cap = PasteCap(limit)

    def feed(self, data: str) -> Iterable[Message]:
        if not data:  # the end of input
            return super().feed(data)
        passed = self.paste_cap.filter(data)
        # Nothing passed (a held piece of a marker) is not the end of input, as "" would be.
        return super().feed(passed) if passed else ()


class CappedPasteDriver(LinuxDriver):
    """Textual's Linux driver reading through CappedPasteParser.

    `run_input_thread` is LinuxDriver's own (textual 8.2.8, pinned exactly), with only the
    parser's class changed: tests/unit/test_paste_cap.py fails when the pinned textual's
    method differs from the one this was copied from."""

    def run_input_thread(self) -> None:
        """Wait for input and dispatch events."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)

        fileno = self.fileno
        EVENT_READ = selectors.EVENT_READ

        parser = CappedPasteParser(self._debug)
        feed = parser.feed
        tick = parser.tick

        decode = getincrementaldecoder("utf-8")().decode
        read = os.read

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]],
            final: bool = False,
        ) -> None:
            for last, (_selector_key, mask) in loop_last(selector_events):
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        break  # stdin is piped
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(0.1))
            selector.unregister(self.fileno)
            process_selector_events(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
