"""HTML written elsewhere (a Moodle question's text), as the app's text and Markdown.

What a browser would show, never the markup: the import keeps no tag of a file it did not
write, and an entity that spells a control character is cleaned like the file itself.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from tui_course.content.text import strip_control

_BLOCK_TAGS = {"p", "br", "div", "li", "tr", "pre", "blockquote", *(f"h{n}" for n in range(1, 7))}
_HIDDEN_TAGS = {"script", "style"}


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in _HIDDEN_TAGS
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in _HIDDEN_TAGS and self.hidden > 0
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """What a browser shows of HTML, as text: tags dropped, entities read, blocks as lines."""
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    # An entity can spell a control character (&#27; is ESC): cleaned like the file itself.
    lines = strip_control("".join(parser.parts)).split("\n")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in lines)).strip()


_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>&~|])")
_MARKDOWN_LINE_START = re.compile(r"^(\s*(?:\d+)?)([#>+=.)-])", re.MULTILINE)


def markdown_escape(text: str) -> str:
    """Text the app's Markdown shows exactly as written (`2*3*4`, `__init__`, `1. fit`)."""
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", text)
    return _MARKDOWN_LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", escaped)
