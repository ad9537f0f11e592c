"""Every reach into Textual's private parts, in one place.

Textual (pinned exactly in pyproject.toml) keeps some of what the app needs in private
modules and attributes: the Linux driver's input thread and its parser (to cap a paste
before it is parsed), the border tables and the truncation ellipsis (for ASCII mode), the
footer's key widget, the list of renderables printed at exit (the crash traceback), and the
watcher lists that keep removed widgets alive. Other modules take them from here only, and
tests/ui/test_textual_compat.py fails when an upgrade moves or reshapes any of them. Two
exceptions: OptionList's row drawing, which the outline (widgets/outline.py) overrides in
its subclass (test_textual_compat.py checks those parts are still there, and
tests/ui/test_outline_rows.py that the outline draws the cells OptionList draws); and a
Stylesheet's `_parse_cache` and `_variables`, which ui/css_cache.py stands in for and reads
(test_textual_compat.py checks Textual still fills and empties it as css_cache expects, and
tests/ui/test_css_cache.py that a start from the file styles every node alike).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import _border
from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.widgets._footer import FooterKey
from textual.widgets._toggle_button import ToggleButton

__all__ = [
    "BORDER_CHARS",
    "BORDER_LOCATIONS",
    "FooterKey",
    "LinuxDriver",
    "ParseError",
    "ToggleButton",
    "XTermParser",
    "clear_border_cache",
    "clear_exit_renderables",
    "loop_last",
    "prune_watchers",
]

# Textual's border glyphs and where each is drawn, by border type: swapped in place for
# ASCII mode (every widget reads them at draw time).
BORDER_CHARS: dict[str, Any] = _border.BORDER_CHARS  # type: ignore[assignment]
BORDER_LOCATIONS: dict[str, Any] = _border.BORDER_LOCATIONS  # type: ignore[assignment]


def clear_border_cache() -> None:
    """Forget the boxes built from the old border tables."""
    _border.get_box.cache_clear()


def clear_exit_renderables(app: Any) -> None:
    """Print nothing of what Textual kept to show at exit (its traceback with locals)."""
    app._exit_renderables.clear()


def prune_watchers(owner: Any, attribute: str, keep: Callable[[Any], bool]) -> None:
    """Keep only the watchers of `owner.attribute` whose node passes `keep`. Textual stores
    watchers as (node, callback) pairs under the attribute name "__watchers" and prunes
    them only when the watched value changes: a value that never changes (the app's theme,
    the footer's `compact`) keeps every removed watcher, and its widget, alive."""
    watchers = getattr(owner, "__watchers", {}).get(attribute)
    if watchers:
        watchers[:] = [(node, callback) for node, callback in watchers if keep(node)]
