"""Lines in, lines out: the only place plain mode touches its streams.

Every line written is cleaned of control characters (content never moves the
cursor), made ASCII when the locale is not UTF-8, and wrapped to the width, so a
screen reader, a braille display, emacs' shell or a pipe gets each line once, as
it is, and never a redraw. Input is read a line at a time, so a script or a
screen reader's terminal drives it the same way.
"""

from __future__ import annotations

import errno
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

from rich.cells import cell_len, set_cell_size

from tui_course.text.safe import clean

PAGE_PROMPT = "Enter: more, n: next item, q: quit, ?: help"
# The longest line read whole: past it, the rest of the line is read and dropped (more than
# any answer or the 20 KB a code check takes; the app's paste cap is the same).
MAX_LINE_CHARS = 64 * 1024
# Characters a line in the course often holds, as ASCII a reader says well.
_ASCII = {
    "\u2014": "-",
    "\u2013": "-",
    "\u2212": "-",
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2026": "...",
    "\u2192": "->",
    "\u2190": "<-",
    "\u2194": "<->",
    "\u21d2": "=>",
    "\u00d7": "x",
    "\u00b7": ".",
    "\u2022": "*",
    "\u221a": "sqrt",
    "\u2248": "~",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u2208": " in ",
    "\u00b2": "^2",
    "\u00b0": " degrees",
    "\u2502": "|",
    "\u2500": "-",
    "\u00a0": " ",
}
_LIST_MARKER = re.compile(r"^ *(?:[-*]|\d{1,3}[.)]) ")
_BLOCKS = re.compile("[\u2580-\u259f]")  # bar and shade glyphs: a bar reads as '#'


class Gone(BaseException):
    """The other end left: input ended, output cannot be written, or a hangup or
    SIGTERM arrived. A BaseException, so `except Exception` never swallows it."""

    def __init__(self, why: str, code: int = 0) -> None:
        super().__init__(why)
        self.why = why
        self.code = code


class Command(Exception):
    """A course-wide command typed at any prompt (next item, list, quit...)."""

    def __init__(self, word: str, argument: str = "") -> None:
        super().__init__(word)
        self.word = word
        self.argument = argument


def to_ascii(text: str) -> str:
    """Text a 7-bit terminal shows: common symbols spelt out, accents dropped, and any
    other letter by its Unicode name ('alpha'), never a '?'."""
    if text.isascii():
        return text
    text = _BLOCKS.sub("#", text)
    out: list[str] = []
    for char in text:
        if char.isascii():
            out.append(char)
        elif char in _ASCII:
            out.append(_ASCII[char])
        else:
            base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            if base:
                out.append(base)
            else:
                name = unicodedata.name(char, "")
                out.append(name.split()[-1].lower() if name else "?")
    return "".join(out)


def wrap(line: str, width: int) -> list[str]:
    """A line cut at spaces to `width` terminal cells, later lines hanging under its text
    (under a list item's words); a word longer than the width is cut."""
    if cell_len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip(" "))]
    marker = _LIST_MARKER.match(line)
    hang = " " * len(marker.group(0)) if marker else lead
    if cell_len(hang) > width // 2:
        hang = ""
    lines: list[str] = []
    current, empty = lead, True  # empty: the current line holds only its indent
    for word in line.strip(" ").split(" "):
        candidate = current + word if empty else f"{current} {word}"
        if cell_len(candidate) <= width:
            current, empty = candidate, False
            continue
        if not empty:
            lines.append(current.rstrip())
            current, empty = hang, True
        while cell_len(current + word) > width:  # longer than a whole line: cut it
            piece = set_cell_size(word, width - cell_len(current)).rstrip(" ")
            if not piece:  # a wide character with one cell left: start a bare line
                if current.strip():
                    lines.append(current.rstrip())
                current = ""
                continue
            lines.append(current + piece)
            word, current = word[len(piece) :], hang
        current, empty = current + word, not word
    if current.strip():
        lines.append(current.rstrip())
    return lines or [""]


class Console:
    """The conversation's two ends. `echo` repeats each line read after its prompt when
    input is not a terminal (a pipe, a test), so a transcript reads as a dialogue."""

    def __init__(
        self,
        source: TextIO,
        sink: TextIO,
        width: int = 80,
        height: int = 24,
        ascii_only: bool = False,
        colour: bool = False,
        echo: bool = False,
    ) -> None:
        self.source = source
        self.sink = sink
        self.width = max(width, 20)
        self.height = max(height, 5)
        self.ascii_only = ascii_only
        self.colour = colour
        self.echo = echo
        self._pending: list[str] = []  # lines read ahead (the start's look at stdin)
        self.help_text = ""  # what ? prints at a page prompt
        # words a page prompt answers in place, the page going on after them (l: the list)
        self.inline_words: dict[str, Callable[[], None]] = {}
        self.last_prompt = ""  # the prompt now waiting for a line, whole (however wrapped)

    # output

    def _write(self, text: str) -> None:
        try:
            self.sink.write(text)
            self.sink.flush()
        except BrokenPipeError:
            raise Gone("output closed") from None
        except OSError as error:
            if error.errno in (errno.EIO, errno.EPIPE, errno.ENXIO, errno.EBADF):
                raise Gone("terminal gone") from None
            raise
        except ValueError:  # the stream was closed under us
            raise Gone("output closed") from None

    def fitted(self, text: str) -> list[str]:
        """`text` as the lines that will be written: clean, ASCII if asked, wrapped."""
        text = clean(text).replace("\t", "    ")
        if self.ascii_only:
            text = to_ascii(text)
        lines: list[str] = []
        for line in text.split("\n"):
            lines.extend(wrap(line.rstrip(), self.width))
        return lines

    def say(self, text: str = "", style: str = "") -> None:
        """Write text as whole lines; `style` ('good', 'bad', 'heading') colours it only
        with --color."""
        for line in self.fitted(text):
            self._write(self._styled(line, style) + "\n")

    def say_all(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.say(line)

    def _styled(self, line: str, style: str) -> str:
        codes = {"good": "32", "bad": "33", "heading": "1"}
        if not self.colour or style not in codes or not line:
            return line
        return f"\x1b[{codes[style]}m{line}\x1b[0m"

    # input

    def push_back(self, lines: Iterable[str]) -> None:
        self._pending.extend(lines)

    def ask(self, prompt: str) -> str:
        """Write the prompt (its last line ends with '> '), read one line."""
        self.last_prompt = prompt
        lines = self.fitted(prompt)
        for line in lines[:-1]:
            self._write(line + "\n")
        last = lines[-1] if lines else ""
        if cell_len(last) + 2 > self.width:
            self._write(last + "\n")
            last = ""
        self._write(f"{last}> " if last else "> ")
        answer = self._read_line()
        if self.echo:
            shown = self.fitted(answer)[0] if answer.strip() else ""
            room = self.width - cell_len(last) - 2
            if cell_len(shown) > room:  # on a line of its own rather than cut
                self._write("\n")
                room = self.width
            self._write(set_cell_size(shown, room).rstrip() if cell_len(shown) > room else shown)
            self._write("\n")
        return answer

    def read_raw(self) -> str:
        """One line as typed (a line of code): no prompt, nothing stripped, no word obeyed;
        echoed like any answer when input is not a terminal."""
        line = self._read_line()
        if self.echo:
            self._write((self.fitted(line)[0] if line.strip() else "") + "\n")
        return line

    def _read_line(self) -> str:
        if self._pending:
            return self._pending.pop(0)
        line = self._read_bounded()
        if line == "":
            raise Gone("end of input")
        return clean(line.rstrip("\r\n")).replace("\n", " ")

    def _read_bounded(self) -> str:
        """One line of at most MAX_LINE_CHARS: the rest of a longer one (a 400 MB line with
        no newline, from a pipe or a paste) is read and dropped a piece at a time, so
        memory stays bounded; what is kept is the line's start, which every answer and
        code box refuses by its own, smaller limit."""
        line = self._read_piece()
        if len(line) < MAX_LINE_CHARS or line.endswith("\n"):
            return line
        while True:
            rest = self._read_piece()
            if rest == "" or rest.endswith("\n"):
                return line + "\n"

    def _read_piece(self) -> str:
        try:
            return self.source.readline(MAX_LINE_CHARS)
        except KeyboardInterrupt:
            raise
        except OSError as error:
            if error.errno in (errno.EIO, errno.EBADF, errno.ENXIO):
                raise Gone("terminal gone") from None
            raise
        except ValueError:
            raise Gone("input closed") from None

    def page(self, lines: Iterable[str], pager_words: dict[str, str]) -> None:
        """Lines a screenful at a time; between screens the page prompt. A word in
        `pager_words` (n, q, ...) raises Command; Enter goes on."""
        shown = 0
        room = self.height - 1
        for line in _fitted_all(self, lines):
            if shown == room:
                self._between_pages(pager_words)
                shown = 0
            self._write(line + "\n")
            shown += 1

    def _between_pages(self, pager_words: dict[str, str]) -> None:
        while True:
            answer = self.ask(PAGE_PROMPT).strip().lower()
            if answer == "":
                return
            if answer in ("?", "help"):
                self.say(self.help_text)
                continue
            if answer in self.inline_words:
                self.inline_words[answer]()
                continue
            if answer in pager_words:
                raise Command(pager_words[answer])
            word, _, rest = answer.partition(" ")
            if word in pager_words:
                raise Command(pager_words[word], rest.strip())
            self.say("Press Enter for more, or n, q or ? (then Enter).")


def _fitted_all(console: Console, lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        yield from console.fitted(line)
