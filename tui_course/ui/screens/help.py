"""The help screen: every key, gathered from the bindings themselves so it cannot drift."""

from __future__ import annotations

from collections.abc import Iterable

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


def help_text(sections: list[tuple[str, Iterable[BindingType]]], notes: list[str]) -> str:
    lines: list[str] = []
    for title, bindings in sections:
        lines.append(title)
        for keys, description in binding_lines(bindings):
            lines.append(f"  {keys:<22} {description}")
        lines.append("")
    lines.extend(notes)
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close help"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys (Esc closes)"
            yield Static(self.text, markup=False)
