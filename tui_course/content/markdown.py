"""The one Markdown parser the course is read and shown with.

Textual's Markdown widget parses with markdown-it's "gfm-like" preset, which passes raw
HTML through as html tokens, and then draws nothing for them: "appends <eos> and pads
with <pad>" read "appends  and pads with .". A course about tokens must be able to write
`<eos>`, and the README promises raw HTML shows as text, so HTML is switched off here:
markdown-it then reads `<eos>`, `<b>` and `<div>` as the text they are. The lesson and
quiz views pass this as their parser_factory; anything that renders course Markdown
another way (plain text, block counts) parses with it too, so all agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


def markdown_parser() -> MarkdownIt:
    """A new parser (callers may change its rules): gfm-like, raw HTML shown as text."""
    from markdown_it import MarkdownIt  # on first use: not start-up work

    return MarkdownIt("gfm-like", {"html": False})
