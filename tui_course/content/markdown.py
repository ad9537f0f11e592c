"""The one Markdown parser the course is read and shown with.

Textual's Markdown widget parses with markdown-it's "gfm-like" preset, which passes raw
HTML through as html tokens, and then draws nothing for them: "appends <eos> and pads
with <pad>" read "appends  and pads with .". A course about tokens must be able to write
`<eos>`, and docs/authoring.md promises raw HTML shows as text, so HTML is switched off here:
markdown-it then reads `<eos>`, `<b>` and `<div>` as the text they are. The lesson and
quiz views pass this as their parser_factory; anything that renders course Markdown
another way (plain text, block counts) parses with it too, so all agree.

The rest of "gfm-like" is kept (CommonMark, tables, strikethrough) except linkify: a bare
address stays the words it is, as a link written [like this](...) is shown and never
opened anyway. Linkify's matcher is built with each parser and compiles its patterns on
first use: lesson 1's first parse took about four times as long with it, on every start.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


def markdown_parser() -> MarkdownIt:
    """A new parser (callers may change its rules): CommonMark with tables and
    strikethrough, raw HTML shown as text, bare addresses left as words."""
    from markdown_it import MarkdownIt  # on first use: not start-up work

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


@cache
def reading_parser() -> MarkdownIt:
    """The parser for Markdown read as plain text (line mode, a prompt's first words): the
    app's own, so plain mode reads what the Markdown view shows."""
    return markdown_parser()


def inline_text(children: list[Token] | None) -> str:
    """An inline run as it reads: emphasis and code marks dropped, a link's address in
    brackets after its words (never opened), an image by its description."""
    out: list[str] = []
    link: list[str] = []
    for token in children or []:
        kind = token.type
        if kind in ("text", "code_inline", "html_inline"):
            out.append(token.content)
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "link_open":
            link.append(str(token.attrs.get("href", "")))
        elif kind == "link_close" and link:
            href = link.pop()
            if href and not href.startswith("#"):
                out.append(f" ({href})")
        elif kind == "image":
            out.append(f"[image: {token.content or 'no description'}]")
    return "".join(out)


def plain_text(source: str) -> str:
    """Markdown as one run of plain words (a prompt quoted in a sentence): its blocks'
    text joined by spaces, code blocks included, no markup characters left."""
    parts = []
    for token in reading_parser().parse(source):
        if token.type == "inline":
            parts.append(inline_text(token.children))
        elif token.type in ("fence", "code_block"):
            parts.append(token.content)
    return " ".join(" ".join(parts).split())
