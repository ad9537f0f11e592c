"""The help screen: every key, gathered from the bindings themselves so it cannot drift:
each pane says its section's title beside its BINDINGS (HELP_TITLE), each binding what
it does (its tooltip, else its description)."""

from __future__ import annotations

import importlib
import io
import pkgutil
from collections.abc import Iterable, Iterator

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
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
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "comma": ",",
    "full_stop": ".",
}


def key_label(keys: str) -> str:
    return " / ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def binding_lines(
    bindings: Iterable[BindingType], hidden: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """(keys, what they do), merging keys that share a description; digit keys as one row.
    Bindings whose action is in `hidden` are left out: they do nothing here."""
    rows: dict[str, list[str]] = {}
    for binding in bindings:
        if not isinstance(binding, Binding) or binding.action in hidden:
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


# Keys of Textual's own widgets (the outline's list, a scrolling lesson), and the few words
# no binding can say.
OTHER_KEYS: Rows = [
    ("Up / Down", "Move in the outline, scroll a lesson, move between options"),
    ("Enter", "Open the highlighted outline item"),
    ("PgUp / PgDn", "Scroll a page"),
    ("Left / Right", "Scroll a figure wider than the lesson (Tab to it first)"),
    ("ctrl+p", "Command palette: open any lesson or quiz by name"),
]
FOOTNOTE = (
    "While typing (an answer, a sentence), letters go into the box: press Esc once "
    "to leave it, then the keys above work. Tab moves into a lesson's live figure. "
    "Below 100 columns the outline opens over the lesson (o or Esc). "
    "The mouse works too: click outline items, quiz options and heatmap rows."
)
EVERYWHERE = "Everywhere"


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def help_panes() -> list[type[DOMNode]]:
    """Every pane that names its own help section (HELP_TITLE beside its BINDINGS), in
    HELP_RANK order (where the course meets it first). The widget modules are imported
    here: most load only when their pane first opens, and help lists every pane."""
    import tui_course.ui.widgets as widgets

    for module in pkgutil.iter_modules(widgets.__path__):
        importlib.import_module(f"{widgets.__name__}.{module.name}")
    panes = {cls for cls in _subclasses(DOMNode) if "HELP_TITLE" in cls.__dict__}
    return sorted(panes, key=lambda cls: (getattr(cls, "HELP_RANK", 0), cls.__name__))


def focused_first(
    panes: list[type[DOMNode]], everywhere: Iterable[BindingType], focused: Widget | None
) -> list[tuple[str, Iterable[BindingType]]]:
    """Each pane's (title, bindings) after the keys that work everywhere, except that the
    focused pane comes first and says so: the keys that work right now are the ones
    wanted above the fold."""
    sections = [(str(pane.__dict__["HELP_TITLE"]), pane.BINDINGS) for pane in panes]
    nodes = [] if focused is None else list(focused.ancestors_with_self)
    for node in nodes:
        for index, pane in enumerate(panes):
            if isinstance(node, pane):
                title, bindings = sections.pop(index)
                return [(f"{title} (focused)", bindings), (EVERYWHERE, everywhere), *sections]
    return [(EVERYWHERE, everywhere), *sections]


def help_sections(
    sections: list[tuple[str, Iterable[BindingType]]],
    notes: list[tuple[str, Rows]],
    hidden: frozenset[str] = frozenset(),
) -> list[tuple[str, Rows]]:
    """Each section's (keys, what they do) rows: the bindings' own, then the notes."""
    return [(title, binding_lines(bindings, hidden)) for title, bindings in sections] + notes


def course_help(everywhere: Iterable[DOMNode], focused: Widget | None) -> HelpScreen:
    """The help for the course: the keys of `everywhere` (the app, its screen) and of
    every pane, read from their BINDINGS, then the outline's marks."""
    from tui_course.runtime.shell_access import editor_available
    from tui_course.ui.widgets.outline import MARKS_LEGEND

    keys = [binding for node in everywhere for binding in type(node).BINDINGS]
    sections = focused_first(help_panes(), keys, focused)
    # ctrl+o opens $EDITOR only where the student has a shell anyway: listed only there
    hidden = frozenset() if editor_available() else frozenset({"external_editor"})
    notes = [("Other keys", OTHER_KEYS), ("Outline marks", list(MARKS_LEGEND))]
    return HelpScreen(help_sections(sections, notes, hidden), FOOTNOTE)


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
MAX_BOX_WIDTH = 200  # the box's max-width (MODAL_BOX_CSS)
COLUMN_WIDTH = 40  # one column of help per 40 terminal columns: 2 at 80-119, 3 from 120
MOST_COLUMNS = 4
# The box's frame: a border and one cell of padding each side, a 2-cell scrollbar and the
# gap before it.
FRAME_WIDTH = 7
GUTTER = 2  # between two columns (the CSS margin of .help-column)
SECTION_INDENT = 2  # the CSS padding-left of .help-section


def column_count(width: int) -> int:
    """How many columns of sections fit: one below 80, then one more per 40 columns."""
    return max(1, min(MOST_COLUMNS, width // COLUMN_WIDTH))


def keys_width_for(rows: Rows, column_width: int) -> int:
    """The keys column: as wide as the widest keys, but never more than a third of the column
    (long key lists fold inside their own column)."""
    widest = max((len(keys) for keys, _ in rows), default=1)
    return max(1, min(widest, KEYS_WIDTH, column_width // 3))


def section_height(rows: Rows, column_width: int) -> int:
    """The lines a section takes in a column this wide (its title, its table as Rich wraps
    it, the gap after it): what the columns are balanced by."""
    table_width = max(1, column_width - SECTION_INDENT)
    console = Console(width=table_width, file=io.StringIO(), legacy_windows=False)
    table = section_table(rows, keys_width_for(rows, column_width))
    return 1 + len(console.render_lines(table, console.options)) + 1


def split_columns(heights: list[int], columns: int) -> list[list[int]]:
    """Section indexes per column: each section in turn goes to the shortest column so far
    (the leftmost on a tie). The first sections (the focused pane's, then the keys that work
    everywhere) head the columns, so they are what shows above the fold."""
    runs: list[list[int]] = [[] for _ in range(max(1, min(columns, len(heights))))]
    filled = [0] * len(runs)
    for index, height in enumerate(heights):
        shortest = filled.index(min(filled))
        runs[shortest].append(index)
        filled[shortest] += height
    return [run for run in runs if run]


def section_table(rows: Rows, keys_width: int) -> Table:
    """Keys in one column, what they do in the other: a long description wraps in its
    own column, so continuation lines stay indented."""
    table = Table.grid(padding=(0, 1))
    table.add_column(width=keys_width, overflow="fold")
    table.add_column(ratio=1, overflow="fold")
    for keys, description in rows:
        table.add_row(Text(keys, style="bold"), Text(description))
    return table


# A modal's box, shared by the help and doctor screens (in their own CSS, not app.tcss:
# parsed when one first opens, not before the first frame).
MODAL_BOX_CSS = f"""
    align: center middle;
    & > VerticalScroll {{
        width: 100%;
        max-width: {MAX_BOX_WIDTH};
        height: auto;
        max-height: 100%;
        border: round $primary;
        padding: 0 1;
        background: $surface;
    }}
"""


class HelpScreen(ModalScreen[None]):
    """The sections side by side where the terminal is wide enough (a column per 40 cells),
    one under another below 80 columns; the box scrolls when they do not fit."""

    DEFAULT_CSS = f"""
    HelpScreen {{
        {MODAL_BOX_CSS}
    }}
    /* Columns side by side (how many from the width; one below 80). */
    HelpScreen #help-columns {{
        height: auto;
        margin-right: 1;  /* a gap before the scrollbar */
    }}
    HelpScreen .help-column {{
        width: 1fr;
        height: auto;
        margin-left: {GUTTER};
    }}
    HelpScreen .help-column:first-of-type {{
        margin-left: 0;
    }}
    HelpScreen .help-title {{
        text-style: bold underline;
    }}
    HelpScreen .help-section {{
        margin-bottom: 1;
        padding-left: {SECTION_INDENT};
    }}
    """
    AUTO_FOCUS = "#help-box"  # the app sets none; the help scrolls with the keys
    BINDINGS = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close help"),
    ]

    def __init__(self, sections: list[tuple[str, Rows]], footnote: str = "") -> None:
        super().__init__()
        self.sections = sections
        self.footnote = footnote
        self.text = help_text(sections, footnote)
        self.columns = 0  # set by compose from the terminal's width

    def compose(self) -> ComposeResult:
        width = self.app.size.width
        self.columns = column_count(width)
        inner = max(1, min(width, MAX_BOX_WIDTH) - FRAME_WIDTH)
        column_width = max(1, (inner - GUTTER * (self.columns - 1)) // self.columns)
        heights = [section_height(rows, column_width) for _, rows in self.sections]
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys (Esc closes)"
            with Horizontal(id="help-columns"):
                for run in split_columns(heights, self.columns):
                    with Vertical(classes="help-column"):
                        for index in run:
                            title, rows = self.sections[index]
                            yield Static(Text(title), classes="help-title")
                            yield Static(
                                section_table(rows, keys_width_for(rows, column_width)),
                                classes="help-section",
                            )
            if self.footnote:
                yield Static(Text(self.footnote), classes="help-footnote")

    async def on_resize(self, event: events.Resize) -> None:
        """A terminal made wider or narrower gets the columns that now fit."""
        if column_count(event.size.width) != self.columns:
            await self.recompose()
            self.query_one("#help-box").focus()
