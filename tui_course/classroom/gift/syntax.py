"""GIFT's escapes and attn-tui's comment markers: what the export writes and the import reads.

Moodle escapes `~ = # { } :` and the backslash with a backslash, and writes a newline as
`\\n`; one table serves both directions, so the two can never disagree.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

_ESCAPES = {
    "\\": "\\\\",
    "~": "\\~",
    "=": "\\=",
    "#": "\\#",
    "{": "\\{",
    "}": "\\}",
    ":": "\\:",
    "\n": "\\n",
}
# The character after a backslash -> what it stands for (`\n` is a newline).
_UNESCAPES = {escaped[1]: char for char, escaped in _ESCAPES.items()}

# The line before a question holding what GIFT has no syntax for (a JSON object).
QUESTION_META = "// attn-tui:"
# The line before a quiz's category: its header fields (a JSON object).
QUIZ_META = "// attn-tui quiz:"
# The question comment's entry holding each field's Markdown (prompt, explanation, feedback).
MARKDOWN_ENTRY = "markdown"
# The question comment's mark that a numeric key has tolerance 0 in the app (Moodle gets its
# margin).
EXACT_ENTRY = "exact"
# Quiz fields in the quiz comment; only those the quiz loader knows are read.
QUIZ_HEADER_FIELDS = ("id", "title", "after", "intro", "tries")


def escape(text: str) -> str:
    """GIFT-escape text so none of it is read as syntax (one line: newlines become \\n)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(_ESCAPES.get(char, char) for char in text)


@dataclass(frozen=True)
class UnescapedText:
    """Question text after escapes: `literal` marks characters that can never be syntax,
    `lines` the file line each character came from (for errors at the right line)."""

    chars: str
    literal: tuple[bool, ...]
    lines: tuple[int, ...]

    @staticmethod
    def unescape(raw: str, lines: Sequence[int]) -> UnescapedText:
        chars: list[str] = []
        literal: list[bool] = []
        where: list[int] = []
        index = 0
        while index < len(raw):
            char = raw[index]
            if char == "\\" and index + 1 < len(raw) and raw[index + 1] in _UNESCAPES:
                chars.append(_UNESCAPES[raw[index + 1]])
                literal.append(True)
                where.append(lines[index])
                index += 2
                continue
            chars.append(char)
            literal.append(False)
            where.append(lines[index])
            index += 1
        return UnescapedText("".join(chars), tuple(literal), tuple(where))

    def __add__(self, other: UnescapedText) -> UnescapedText:
        return UnescapedText(
            self.chars + other.chars, self.literal + other.literal, self.lines + other.lines
        )

    def __len__(self) -> int:
        return len(self.chars)

    def __getitem__(self, key: slice) -> UnescapedText:
        return UnescapedText(self.chars[key], self.literal[key], self.lines[key])

    def line(self, index: int = 0) -> int:
        if not self.lines:
            return 0
        return self.lines[min(max(index, 0), len(self.lines) - 1)]

    def find(self, syntax: str, start: int = 0) -> int:
        """First index of `syntax` made of unescaped characters, or -1."""
        index = self.chars.find(syntax, start)
        while index >= 0 and any(self.literal[index : index + len(syntax)]):
            index = self.chars.find(syntax, index + 1)
        return index

    def rfind(self, syntax: str) -> int:
        index = self.chars.rfind(syntax)
        while index >= 0 and any(self.literal[index : index + len(syntax)]):
            index = self.chars.rfind(syntax, 0, index + len(syntax) - 1)
        return index

    def strip(self) -> UnescapedText:
        start, end = 0, len(self.chars)
        while start < end and self.chars[start].isspace():
            start += 1
        while end > start and self.chars[end - 1].isspace():
            end -= 1
        return self[start:end]

    def split_before(self, markers: str) -> list[UnescapedText]:
        """Pieces starting at each unescaped marker character (the marker kept)."""
        cuts = [
            i
            for i, char in enumerate(self.chars)
            if char in markers and not self.literal[i] and i > 0
        ]
        bounds = [0, *cuts, len(self.chars)]
        return [self[a:b] for a, b in itertools.pairwise(bounds) if b > a]
