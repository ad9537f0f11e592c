"""Textual's TextArea in code-editor mode, fitted to the course's keys and limits.

- Python is highlighted through tree-sitter when `tree-sitter` and `tree-sitter-python`
  are installed (the `syntax` extra); without them it is the same editor, plain.
- Esc hands the keys back to the view around it (its own keys: check, hint, reveal),
  not to the next pane as TextArea's indent mode does.
- In ASCII mode (LANG=C, --ascii) no block glyph is drawn.
- A paste that would take the code past its limit is refused whole, with one line saying
  so: a 1 MB paste must not freeze the screen or reach a check.
"""

from __future__ import annotations

import contextlib
import importlib.util
from functools import cache

from rich.segment import Segment
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea

DEFAULT_MAX_CHARS = 20 * 1024  # what a check takes and an attempt keeps


@cache
def python_highlighting() -> str | None:
    """ "python" when the grammar is installed; None (plain text) otherwise. TextArea raises
    for a language tree-sitter lacks, so both packages are looked for, not imported."""
    found = all(importlib.util.find_spec(name) for name in ("tree_sitter", "tree_sitter_python"))
    return "python" if found else None


class CodeEditor(TextArea):
    """Build with CodeEditor.code_editor(text, language=python_highlighting(), ...)."""

    max_chars = DEFAULT_MAX_CHARS

    class Refused(Message):
        """A paste was refused (too large); the view says so in its own words."""

        def __init__(self, editor: CodeEditor, message: str) -> None:
            super().__init__()
            self.editor = editor
            self.message = message

    def on_unmount(self) -> None:
        """Let go of what TextArea's mount bound outside this widget: the screen's
        text-selection signal (its callback holds the editor) and the app's `theme` watcher,
        which Textual prunes only when the theme changes. Kept, they kept every removed
        editor alive: each lesson visit left its listings' editors in memory."""
        with contextlib.suppress(Exception):  # the screen may already be gone at shutdown
            self.screen.text_selection_started_signal.unsubscribe(self)
        watchers = getattr(self.app, "__watchers", {}).get("theme")
        if watchers:
            watchers[:] = [(node, callback) for node, callback in watchers if node is not self]

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            holder = next(
                (node for node in self.ancestors if isinstance(node, Widget) and node.can_focus),
                None,
            )
            if holder is not None:
                holder.focus()
            return
        await super()._on_key(event)

    def render_line(self, y: int) -> Strip:
        """TextArea marks a selected empty line with a block glyph: '|' in ASCII mode."""
        strip = super().render_line(y)
        if not getattr(self.app, "ascii_only", False) or "▌" not in strip.text:
            return strip
        return Strip(
            [Segment(text.replace("▌", "|"), style, control) for text, style, control in strip],
            strip.cell_length,
        )

    async def _on_paste(self, event: events.Paste) -> None:
        start, end = self.selection
        selected = len(self.get_text_range(start, end)) if start != end else 0
        if len(self.text) - selected + len(event.text) > self.max_chars:
            event.stop()
            event.prevent_default()
            size = len(event.text)
            shown = f"{size // 1024} KB" if size >= 1024 else f"{size} characters"
            limit = f"{self.max_chars // 1024} KB"
            self.post_message(
                self.Refused(self, f"That paste ({shown}) would make the code over {limit}.")
            )
            return
        await super()._on_paste(event)
