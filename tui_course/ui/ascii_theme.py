"""ASCII glyphs for the whole TUI: borders, scrollbars, progress bars, check boxes, bullets,
the loading indicator.

A terminal whose locale is not UTF-8 (or `--ascii`) shows box-drawing and block
characters as garbage. Textual draws those from a few class-level tables; this
module swaps each table for an ASCII one, and back, so every widget (ours and
Textual's) follows. Textual is pinned, and tests/ui/test_ascii.py reads the
screen to keep this honest.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from rich.color import Color
from rich.segment import Segment, Segments
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.renderables.bar import Bar
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.widgets import LoadingIndicator, Markdown

from tui_course.ui.textual_compat import (
    BORDER_CHARS,
    BORDER_LOCATIONS,
    ToggleButton,
    clear_border_cache,
)

KEEP = {"", "none", "hidden", "blank", "ascii"}
# The focused figure's "double" frame, in ASCII: '#' corners and sides, '=' top and bottom,
# so it still differs from an unfocused figure's '+-|' frame (focus is a glyph cue).
ASCII_DOUBLE = (("#", "=", "#"), ("#", " ", "#"), ("#", "=", "#"))


DEFAULT_COLOR = Color.parse("grey50")  # render_bar's signature; its glyphs ignore colour


class AsciiScrollBarRender(ScrollBarRender):
    """A '#' thumb on a ':' track: reads without colour and without block glyphs."""

    @classmethod
    def render_bar(
        cls,
        size: int = 25,
        virtual_size: float = 50,
        window_size: float = 20,
        position: float = 0,
        thickness: int = 1,
        vertical: bool = True,
        back_color: Color = DEFAULT_COLOR,
        bar_color: Color = DEFAULT_COLOR,
    ) -> Segments:
        width = thickness if vertical else 1
        track = Segment(":" * width, Style(meta={"@mouse.down": "scroll_down"}))
        if not (window_size and size and virtual_size and size != virtual_size):
            return Segments([Segment(" " * width)] * size, new_lines=vertical)
        thumb_size = max(1, ceil(window_size / (virtual_size / size)))
        start = round((size - thumb_size) * position / max(virtual_size - window_size, 1))
        thumb = Segment("#" * width, Style(bold=True, meta={"@mouse.down": "grab"}))
        above = Segment(":" * width, Style(meta={"@mouse.down": "scroll_up"}))
        segments = [above] * start + [thumb] * thumb_size
        segments += [track] * (size - len(segments))
        return Segments(segments[:size], new_lines=vertical)


_truncate = Content.truncate


def _ascii_truncate(
    self: Content, max_width: int, *, ellipsis: bool = False, pad: bool = False
) -> Content:
    """Content.truncate with '~' where Textual puts a '…' (header, border titles)."""
    if ellipsis and max_width and self.cell_length > max_width:
        return _truncate(self, max_width - 1) + Content("~")
    return _truncate(self, max_width, ellipsis=ellipsis, pad=pad)


_loading_render = LoadingIndicator.render


def _ascii_loading_render(self: LoadingIndicator) -> Text:
    """Textual's own still form of the indicator, instead of its five '\u25cf' dots."""
    return Text("Loading...")


_UNICODE: dict[str, Any] = {
    "border_chars": dict(BORDER_CHARS),
    "border_locations": dict(BORDER_LOCATIONS),
    "scrollbar": ScrollBar.renderer,
    "bar": (Bar.HALF_BAR_LEFT, Bar.BAR, Bar.HALF_BAR_RIGHT),
    "toggle": (ToggleButton.BUTTON_LEFT, ToggleButton.BUTTON_INNER, ToggleButton.BUTTON_RIGHT),
    "bullets": list(Markdown.BULLETS),
}


def use_ascii_glyphs(ascii_only: bool) -> None:
    """Switch Textual's glyph tables to ASCII (True) or back to Unicode (False)."""
    chars: dict[str, Any] = _UNICODE["border_chars"]
    locations: dict[str, Any] = _UNICODE["border_locations"]
    for name in chars:
        swap = ascii_only and name not in KEEP
        ascii_chars = ASCII_DOUBLE if name == "double" else chars["ascii"]
        BORDER_CHARS[name] = ascii_chars if swap else chars[name]
        BORDER_LOCATIONS[name] = locations["ascii"] if swap else locations[name]
    clear_border_cache()
    ScrollBar.renderer = AsciiScrollBarRender if ascii_only else _UNICODE["scrollbar"]
    bar_glyphs = ("=", "=", "=") if ascii_only else _UNICODE["bar"]
    Bar.HALF_BAR_LEFT, Bar.BAR, Bar.HALF_BAR_RIGHT = bar_glyphs
    ToggleButton.BUTTON_LEFT, ToggleButton.BUTTON_INNER, ToggleButton.BUTTON_RIGHT = (
        ("[", "X", "]") if ascii_only else _UNICODE["toggle"]
    )
    Content.truncate = _ascii_truncate if ascii_only else _truncate  # type: ignore[method-assign]
    Markdown.BULLETS = ["* ", "- ", "+ ", "* ", "- "] if ascii_only else list(_UNICODE["bullets"])
    LoadingIndicator.render = (  # type: ignore[method-assign]
        _ascii_loading_render if ascii_only else _loading_render
    )
