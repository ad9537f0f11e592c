"""The help screen: every key, gathered from the bindings themselves so it cannot drift."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEY_NAMES = {
    "question_mark": "?",
    "escape": "Esc",
    "enter": "Enter",
    "space": "Space",
    "right": "Right",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
}


def key_label(keys: str) -> str:
    return " / ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def binding_lines(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do), merging keys that share a description; digit keys as one row."""
    rows: dict[str, list[str]] = {}
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        description = binding.tooltip or binding.description
        if binding.action.startswith("pick("):
            description = "Pick option 1-9 (toggle in multiple choice)"
            keys = "1-9"
        else:
            keys = key_label(binding.key)
        rows.setdefault(description, [])
        if keys not in rows[description]:
            rows[description].append(keys)
    return [(" / ".join(keys), description) for description, keys in rows.items()]


Rows = list[tuple[str, str]]


def help_sections(
    sections: list[tuple[str, Iterable[BindingType]]], notes: list[tuple[str, Rows]]
) -> list[tuple[str, Rows]]:
    """Each section's (keys, what they do) rows: the bindings' own, then the notes."""
    return [(title, binding_lines(bindings)) for title, bindings in sections] + notes


def help_text(sections: list[tuple[str, Rows]], footnote: str = "") -> str:
    """The plain-text form (for searching and tests): a title, then '  keys  description'."""
    lines: list[str] = []
    for title, rows in sections:
        lines.append(title)
        lines.extend(f"  {keys:<22} {description}" for keys, description in rows)
        lines.append("")
    if footnote:
        lines.append(footnote)
    return "\n".join(lines)


KEYS_WIDTH = 22


def section_table(rows: Rows, keys_width: int) -> Table:
    """Keys in one column, what they do in the other: a long description wraps in its
    own column, so continuation lines stay indented."""
    table = Table.grid(padding=(0, 1))
    table.add_column(width=keys_width, overflow="fold")
    table.add_column(ratio=1, overflow="fold")
    for keys, description in rows:
        table.add_row(Text(keys, style="bold"), Text(description))
    return table


class HelpScreen(ModalScreen[None]):
    AUTO_FOCUS = "#help-box"  # the app sets none; the help scrolls with the keys
    BINDINGS = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close help"),
    ]

    def __init__(self, sections: list[tuple[str, Rows]], footnote: str = "") -> None:
        super().__init__()
        self.sections = sections
        self.footnote = footnote
        self.text = help_text(sections, footnote)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys (Esc closes)"
            widest = max((len(keys) for _, rows in self.sections for keys, _ in rows), default=1)
            keys_width = min(widest, KEYS_WIDTH)
            for title, rows in self.sections:
                yield Static(Text(title), classes="help-title")
                yield Static(section_table(rows, keys_width), classes="help-section")
            if self.footnote:
                yield Static(Text(self.footnote), classes="help-footnote")
