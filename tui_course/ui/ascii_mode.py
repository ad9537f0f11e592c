"""The app on a terminal whose locale is not UTF-8 (or `--ascii`): Textual's glyph tables
swapped (ascii_theme, imported only then: it loads Markdown), a hyphen for the header's
em dash, and words for the footer's arrow keys."""

from __future__ import annotations

import sys

from textual.content import Content

from tui_course.runtime.terminal import locale_is_utf8

# Footer key names when arrows (⏎, →) cannot be drawn.
ASCII_KEYS = {"enter": "Enter", "right": "Right", "left": "Left", "up": "Up", "down": "Down"}


def ascii_only_here() -> bool:
    """Whether this terminal needs ASCII (LANG=C, or --ascii: ATTN_TUI_ASCII=1); the glyph
    tables follow, and are switched back for a later app in the same process."""
    ascii_only = not locale_is_utf8()
    if ascii_only or "tui_course.ui.ascii_theme" in sys.modules:
        from tui_course.ui.ascii_theme import use_ascii_glyphs

        use_ascii_glyphs(ascii_only)
    return ascii_only


def ascii_title(title: str, sub_title: str) -> Content:
    return Content.assemble(Content(title), (" - ", "dim"), Content(sub_title).stylize("dim"))


def ascii_key(key: str, shown: str) -> str:
    """A key as the footer shows it: a word where Textual would draw an arrow glyph."""
    return shown if shown.isascii() else ASCII_KEYS.get(key, key)
