"""Textual's TextArea in code-editor mode, fitted to the course's keys and limits.

- Python is highlighted through tree-sitter when `tree-sitter` and `tree-sitter-python`
  are installed (the `syntax` extra); without them it is the same editor, plain.
- Esc hands the keys back to the view around it (its own keys: check, hint, reveal),
  not to the next pane as TextArea's indent mode does.
- Enter keeps the line's indentation, one level more after a line ending in ':' (Textual's
  TextArea has no auto-indent); Backspace still deletes one character.
- Keys pressed before the editor first showed with the focus are dropped: the first code
  question takes a moment to open, and a second Enter meant for the quiz must not edit the
  code (nor a key pressed while it paints: those reach it after the focus). Each dropped
  key is posted (Dropped) and so is the moment keys start to count (TakingKeys), so the
  view around it can say so. Esc is never dropped: pressed before the editor took the
  keys, it is the view's Esc, pressed again there.
- In ASCII mode (LANG=C, --ascii) no block glyph is drawn.
- A paste that would take the code past its limit is refused whole, with one line saying
  so: a 1 MB paste must not freeze the screen or reach a check. One within it is left to
  TextArea's own handler, which Textual calls after this one.
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

from tui_course.ui.paste_cap import PASTE_CHARS, SEQUENCE_CHARS
from tui_course.ui.textual_compat import prune_watchers

DEFAULT_MAX_CHARS = 20 * 1024  # what a check takes and an attempt keeps
INDENT = "    "


def next_line_indent(before_cursor: str) -> str:
    """The indentation Enter gives the new line: the current line's (as far as the cursor),
    one level more when the code before the cursor ends a block header with ':'."""
    indent = before_cursor[: len(before_cursor) - len(before_cursor.lstrip(" \t"))]
    code = before_cursor.split("#", 1)[0].rstrip()  # a '#' in a string: no extra level
    return indent + INDENT if code.endswith(":") else indent


@cache
def python_highlighting() -> str | None:
    """ "python" when the grammar is installed; None (plain text) otherwise. TextArea raises
    for a language tree-sitter lacks, so both packages are looked for, not imported."""
    found = all(importlib.util.find_spec(name) for name in ("tree_sitter", "tree_sitter_python"))
    return "python" if found else None


class CodeEditor(TextArea):
    """Build with CodeEditor.code_editor(text, language=python_highlighting(), ...)."""

    max_chars = DEFAULT_MAX_CHARS
    _keys_from: float | None = None  # when it first showed with the focus (events' clock)

    class Refused(Message):
        """A paste was refused (too large); the view says so in its own words."""

        def __init__(self, editor: CodeEditor, message: str) -> None:
            super().__init__()
            self.editor = editor
            self.message = message

    class Dropped(Message):
        """A key pressed while the editor was still opening was not typed."""

        def __init__(self, editor: CodeEditor) -> None:
            super().__init__()
            self.editor = editor

    class TakingKeys(Message):
        """The editor showed with the focus: keys pressed from now on edit the code."""

        def __init__(self, editor: CodeEditor) -> None:
            super().__init__()
            self.editor = editor

    def on_unmount(self) -> None:
        """Let go of what TextArea's mount bound outside this widget: the screen's
        text-selection signal (its callback holds the editor) and the app's `theme` watcher,
        which Textual prunes only when the theme changes. Kept, they kept every removed
        editor alive: each lesson visit left its listings' editors in memory."""
        with contextlib.suppress(Exception):  # the screen may already be gone at shutdown
            self.screen.text_selection_started_signal.unsubscribe(self)
        prune_watchers(self.app, "theme", lambda node: node is not self)

    def on_focus(self) -> None:
        if self._keys_from is None:
            self.call_after_refresh(self._take_keys)

    @property
    def taking_keys(self) -> bool:
        """Shown with the focus once: keys pressed from now on edit the code."""
        return self._keys_from is not None

    def _take_keys(self) -> None:
        self._keys_from = Message().time  # a message's time: the clock Key events carry
        self.post_message(self.TakingKeys(self))

    async def _on_key(self, event: events.Key) -> None:
        opening = self._keys_from is None or event.time < self._keys_from
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            holder = next(
                (node for node in self.ancestors if isinstance(node, Widget) and node.can_focus),
                None,
            )
            if holder is not None:
                holder.focus()
                if opening:
                    # Pressed while the view around it had the keys (the editor was still
                    # opening) but delivered after it took them: the view's Esc is meant,
                    # so it is pressed again there (it moves on, to the outline).
                    self.app.simulate_key("escape")
            return
        if opening:
            event.stop()  # pressed while the editor was still opening
            event.prevent_default()
            self.post_message(self.Dropped(self))
            return
        if event.key == "enter" and not self.read_only:
            event.stop()
            event.prevent_default()
            self._restart_blink()
            start, end = self.selection
            first = min(start, end)
            before = self.document.get_line(first[0])[: first[1]]
            self._replace_via_keyboard("\n" + next_line_indent(before), start, end)
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
            if size >= PASTE_CHARS - SEQUENCE_CHARS:  # the terminal reader cut it there
                shown = f"over {PASTE_CHARS // 1024} KB"
            limit = f"{self.max_chars // 1024} KB"
            self.post_message(
                self.Refused(self, f"That paste ({shown}) would make the code over {limit}.")
            )
            return
        # Within the limit TextArea's own _on_paste inserts it: Textual calls each class's
        # handler down the MRO, so calling super() here too pasted everything twice.
