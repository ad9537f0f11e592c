"""ASCII heatmaps that read in monochrome: every cell has a shade character and a number.

`heatmap_cells` lays the picture out once, as lines of (text, style) pieces;
`heatmap_text(cells)` joins them into a plain string (command line, tests) and
`heatmap_rich(cells)` colours them (TUI, colour terminals). The characters are the
same in both, so colour is only ever an extra cue.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from tui_course.text.safe import one_line

RAMP = " .:-=+*#%@"
# Signed values (-1 .. +1): one family of characters below zero, another above,
# blank at zero, so the sign reads without colour.
DIVERGING_RAMP = "=-~, .:+#"
CELL = 5  # two shade characters and a three-digit percentage
SIGNED_CELL = 7  # two shade characters and a signed number with two decimals
KEY_LABEL_CAP = 12  # widest key column; longer words are numbered and named on a key line
ROW_LABEL_CAP = 10  # row labels beside compact columns
Piece = tuple[str, str]  # (text, style: "", "label", "selected", "strong", "shade-N", "signed-N")


def format_percent(value: float) -> str:
    """A weight in [0, 1] as a whole percentage, right-aligned in 3 characters."""
    return f"{round(value * 100):>3d}"


def shown_percent(value: float) -> float:
    """A weight as format_percent prints it, back as a fraction (0.496 -> 0.50)."""
    return round(value * 100) / 100


def format_signed(value: float) -> str:
    """A value in [-1, 1] with its sign and two decimals, in 5 characters ('-0.42')."""
    text = f"{value:5.2f}"
    return " 0.00" if text.strip() == "-0.00" else text


def signed_index(value: float, limit: float = 1.0) -> int:
    """Where `value` sits on DIVERGING_RAMP, for values from -limit to +limit."""
    middle = len(DIVERGING_RAMP) // 2
    fraction = float(np.clip(value / limit, -1.0, 1.0)) if limit > 0 else 0.0
    return middle + round(fraction * middle)


def signed_shade(value: float, limit: float = 1.0) -> str:
    return DIVERGING_RAMP[signed_index(value, limit)]


def signed_legend(limit: float = 1.0) -> str:
    """The shade order, most negative first: "-1 '=' '-' '~' ',' ' ' (0) '.' ':' '+' '#' +1"."""
    middle = len(DIVERGING_RAMP) // 2
    below = " ".join(f"'{c}'" for c in DIVERGING_RAMP[:middle])
    above = " ".join(f"'{c}'" for c in DIVERGING_RAMP[middle + 1 :])
    return f"-{limit:g} {below} '{DIVERGING_RAMP[middle]}' (0) {above} +{limit:g}"


def fit_cells(label: str, width: int) -> str:
    """`label` cut to `width` terminal cells ('~' marks a cut); wide CJK/emoji count 2."""
    if cell_len(label) <= width:
        return label
    return set_cell_size(label, width - 1).rstrip(" ") + "~" if width > 1 else "~"


def ljust_cells(text: str, width: int) -> str:
    return text + " " * max(width - cell_len(text), 0)


def rjust_cells(text: str, width: int) -> str:
    return " " * max(width - cell_len(text), 0) + text


def shade_index(value: float, top: float, low: float = 0.0) -> int:
    if top <= low:
        return len(RAMP) - 1 if value >= top > 0 else 0
    return round(float(np.clip((value - low) / (top - low), 0.0, 1.0)) * (len(RAMP) - 1))


def shade(value: float, top: float, low: float = 0.0) -> str:
    """The ramp character for value on a scale from `low` (blank) to `top` (darkest)."""
    return RAMP[shade_index(value, top, low)]


def _fit(label: str, width: int) -> str:
    """The label in at most `width` cells, padded to exactly `width` after a cut."""
    fitted = fit_cells(label, width)
    return ljust_cells(fitted, width) if fitted != label else label


def window(total: int, size: int | None, focus: int | None) -> range:
    """`size` consecutive indexes out of `total`, keeping `focus` inside (centred if possible)."""
    if size is None or size >= total:
        return range(total)
    size = max(size, 1)
    start = min(max((focus or 0) - size // 2, 0), total - size)
    return range(start, start + size)


def shown_columns(
    total: int, size: int | None, focus: int | None, keep: Sequence[int] = ()
) -> list[int]:
    """The window of columns around `focus`, plus the `keep` columns, in order."""
    kept = sorted({column for column in keep if 0 <= column < total})
    if size is None or size >= total:
        return list(range(total))
    if len(kept) >= size:
        return kept[:size]
    around = window(total, size, focus)
    extra = [column for column in kept if column not in around]
    if extra:
        around = window(total, size - len(extra), focus)
        extra = [column for column in kept if column not in around]
    return sorted({*around, *extra})


def spans(indexes: Sequence[int], names: Sequence[str] | None = None) -> str:
    """1-based runs of consecutive indexes: [0, 24, 25, 26] -> '1, 25-27'; with `names`,
    each run is named by its labels instead (positions labelled 0-9 read '0-8', not '1-9')."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])

    def name(index: int) -> str:
        return names[index] if names is not None else str(index + 1)

    return ", ".join(
        name(run[0]) if len(run) == 1 else f"{name(run[0])}-{name(run[-1])}" for run in runs
    )


def label_width(labels: Sequence[str], cap: int = ROW_LABEL_CAP) -> int:
    return min(max((cell_len(label) for label in labels), default=1), cap)


def cell_width(signed: bool = False) -> int:
    return SIGNED_CELL if signed else CELL


def columns_that_fit(width: int, labels: Sequence[str], signed: bool = False) -> int:
    """How many compact key columns fit in `width` cells next to the row labels."""
    return max(1, (width - label_width(labels) - 2 + 1) // (cell_width(signed) + 1))


@dataclass(frozen=True)
class HeatmapLayout:
    """How wide the row labels and key columns are, and how many key columns show."""

    row_width: int
    cell: int
    max_columns: int | None  # None: every column


def heatmap_layout(
    width: int | None,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    signed: bool = False,
) -> HeatmapLayout:
    """Wide key columns holding whole words when they all fit in `width` (None: no limit);
    else compact ones, numbered and named on a key line, windowed only if even those
    do not all fit."""
    compact = cell_width(signed)
    longest = max((cell_len(label) for label in column_labels), default=1)
    if longest <= KEY_LABEL_CAP:
        row_width = label_width(row_labels, KEY_LABEL_CAP)
        # A spare cell keeps two spaces between whole words ('street  because') when it fits.
        for cell in (max(compact, longest + 1), max(compact, longest)):
            needed = row_width + 2 + len(column_labels) * (cell + 1) - 1
            if width is None or needed <= width:
                return HeatmapLayout(row_width, cell, None)
    row_width = label_width(row_labels)
    if width is None:
        return HeatmapLayout(row_width, compact, None)
    fit = columns_that_fit(width, row_labels, signed)
    return HeatmapLayout(row_width, compact, None if fit >= len(column_labels) else fit)


def _packed(prefix: str, items: Sequence[Piece], width: int | None) -> list[list[Piece]]:
    """`items` after `prefix`, two spaces apart, on as many lines as `width` needs;
    later lines are indented under the first item."""
    indent = " " * cell_len(prefix)
    lines: list[list[Piece]] = [[(prefix, "")]]
    used = cell_len(prefix)
    for text, style in items:
        if width is not None and cell_len(text) > width - len(indent):
            text = fit_cells(text, width - len(indent))  # a word longer than the figure
        size = cell_len(text)
        if used > len(indent) and width is not None and used + 2 + size > width:
            lines.append([(indent, "")])
            used = len(indent)
        if used > len(indent):
            lines[-1].append(("  ", ""))
            used += 2
        lines[-1].append((text, style))
        used += size
    return lines


def heatmap_cells(
    weights: ArrayLike,
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    selected: int | None = None,
    unit: str = "weights",
    shade_from_min: bool = False,
    max_rows: int | None = None,
    max_columns: int | None = None,
    signed: bool = False,
    keep_columns: Sequence[int] = (),
    width: int | None = None,
    absolute: bool = False,
) -> list[list[Piece]]:
    """Rows are queries, columns are keys; '>' marks the selected row and '^' its
    strongest key. Long inputs are windowed around the selected row.

    `width` is the room the figure has: key columns widen to hold whole words when
    they fit, else compact columns are numbered and a key line under the figure names
    each shown column in full. `max_columns` forces compact columns, that many at most.
    `signed` is for values from -1 to +1 (cosine similarity): each cell shows the
    value with two decimals on DIVERGING_RAMP, and the legend gives the shade order.
    `keep_columns` stay on screen when the columns are windowed (the trained
    model's first and last positions).
    `absolute` shades on a fixed scale, '@' = 100 %, instead of this figure's largest
    weight: a near-flat map then looks flat (a 6 % cell is '..', not '##').
    """
    row_labels = [one_line(label) for label in row_labels]
    column_labels = [one_line(label) for label in column_labels]
    matrix = np.asarray(weights, dtype=np.float64)
    top = float(matrix.max()) if matrix.size else 0.0
    low = float(matrix.min()) if shade_from_min and matrix.size else 0.0
    if absolute:
        top, low = 1.0, 0.0
    if max_columns is not None:
        layout = HeatmapLayout(label_width(row_labels), cell_width(signed), max_columns)
    else:
        layout = heatmap_layout(width, row_labels, column_labels, signed)
    cell, row_width = layout.cell, layout.row_width
    rows = window(len(row_labels), max_rows, selected)
    strongest: int | None = None
    if selected is not None:
        row_values = matrix[selected].copy()
        if signed and row_values.size > 1 and selected < row_values.size:
            # A similarity map: every position is most like itself; mark the next most alike.
            row_values[selected] = -np.inf
        strongest = int(np.argmax(row_values))
    keep = [*keep_columns, *([selected] if signed and selected is not None else [])]
    columns = shown_columns(
        len(column_labels),
        layout.max_columns,
        strongest if strongest is not None else selected,
        keep,  # a similarity row keeps its own 1.00 beside the marked one
    )
    # Numbered when a shown word does not fit its column: the key line names them all.
    numbered = any(cell_len(column_labels[column]) > cell for column in columns)
    header: list[Piece] = [(" " * (row_width + 2), "")]
    for position, column in enumerate(columns):
        style = "strong" if column == strongest else "label"
        name = str(column + 1) if numbered else column_labels[column]
        header.append(((" " if position else "") + rjust_cells(_fit(name, cell), cell), style))
    lines = [header]
    for row in rows:
        is_selected = row == selected
        line: list[Piece] = [
            (">" if is_selected else " ", "selected" if is_selected else ""),
            (
                ljust_cells(_fit(row_labels[row], row_width), row_width),
                "selected" if is_selected else "label",
            ),
            (" ", ""),
        ]
        for position, column in enumerate(columns):
            value = float(matrix[row, column])
            padding = " " * (cell - cell_width(signed) + (1 if position else 0))
            if padding:
                line.append((padding, ""))
            if signed:
                level = signed_index(value)
                piece, style = DIVERGING_RAMP[level] * 2 + format_signed(value), f"signed-{level}"
            else:
                # Shaded from the percentage printed beside it: two cells reading 50 never
                # get two different shades ('== 50 ++ 50' looked like a mistake).
                level = shade_index(shown_percent(value), shown_percent(top), shown_percent(low))
                piece, style = RAMP[level] * 2 + format_percent(value), f"shade-{level}"
            if is_selected and column == strongest:
                style = "strong"
            line.append((piece, style))
        lines.append(line)
    if signed:
        legend = [f"{unit} from -1 to +1", f"shade order {signed_legend()}"]
    else:
        scale = " (a fixed scale)" if absolute else ""
        legend = [
            f"{unit} in %",
            f"shade ' ' = {format_percent(low).strip()}"
            f" ... '{RAMP[-1]}' = {format_percent(top).strip()}{scale}",
        ]
    if strongest is not None and selected is not None:
        if strongest in columns:
            value_width = cell_width(signed)
            offset = row_width + 2 + columns.index(strongest) * (cell + 1) + cell - value_width
            lines.append([(" " * offset + "^" * value_width, "strong")])
        if signed:
            legend.append(f"^ most alike to '{row_labels[selected]}', itself aside")
        else:
            legend.append(f"^ strongest key for '{row_labels[selected]}'")
    if numbered:
        names = [
            (f"{column + 1} {column_labels[column]}", "strong" if column == strongest else "label")
            for column in columns
        ]
        lines += _packed("keys: ", names, width)
    if len(rows) < len(row_labels) or len(columns) < len(column_labels):
        # Numbers as labels (positions from 0) name the rows and columns shown; otherwise
        # they are counted from 1, as the numbered columns are.
        label_names = column_labels if all(label.isdigit() for label in column_labels) else None
        row_names = row_labels if label_names is not None else None
        shown = f"columns {spans(columns, label_names)} of {len(column_labels)}"
        legend.append(f"rows {spans(list(rows), row_names)} and {shown}")
    lines += _legend_lines(legend, width)
    return lines


def _legend_lines(parts: Sequence[str], width: int | None) -> list[list[Piece]]:
    """The legend's parts joined by '; ', broken between parts where `width` needs it;
    a part wider than `width` is wrapped between its words."""
    lines: list[str] = []
    for part in parts:
        if lines and (width is None or cell_len(lines[-1]) + 2 + cell_len(part) <= width):
            lines[-1] += "; " + part
        elif width is None or cell_len(part) <= width:
            lines.append(part)
        else:
            lines += _wrapped(part, width)
    return [[(line, "")] for line in lines]


def _wrapped(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken between words; a quoted shade
    such as "' '" stays one word, and later lines are indented by two."""
    lines = [""]
    for word in re.findall(r"'[^']*'|\S+", text):
        if lines[-1].strip() and cell_len(lines[-1]) + 1 + cell_len(word) > width:
            lines.append("  ")
        separator = " " if lines[-1].strip() else ""
        lines[-1] += separator + word
    return [fit_cells(line, width) for line in lines]


def heatmap_text(cells: list[list[Piece]]) -> str:
    """The picture of heatmap_cells as plain text (command line, tests, validation)."""
    return "\n".join("".join(text for text, _ in line).rstrip() for line in cells)


def _style(name: str) -> Style:
    if name.startswith("shade-"):
        level = int(name.removeprefix("shade-"))
        # A blue ramp behind the characters, darkest for the smallest values.
        fraction = level / (len(RAMP) - 1)
        blue = (int(20 + 40 * fraction), int(40 + 110 * fraction), int(70 + 185 * fraction))
        return Style(bgcolor=f"rgb({blue[0]},{blue[1]},{blue[2]})", color="white")
    if name.startswith("signed-"):
        # Red below zero, blue above, dark grey at zero: a diverging scale.
        level = int(name.removeprefix("signed-"))
        middle = len(DIVERGING_RAMP) // 2
        strength = abs(level - middle) / middle
        grey = 40
        if level < middle:
            colour = (int(grey + 180 * strength), grey, grey)
        else:
            colour = (grey, int(grey + 60 * strength), int(grey + 200 * strength))
        return Style(bgcolor=f"rgb({colour[0]},{colour[1]},{colour[2]})", color="white")
    return {
        "label": Style(),
        "selected": Style(bold=True, reverse=True),
        "strong": Style(bold=True, underline=True, color="yellow"),
    }.get(name, Style())


def heatmap_rich(cells: list[list[Piece]]) -> Text:
    """The picture of heatmap_cells with colour behind each cell (same characters)."""
    text = Text(no_wrap=True, overflow="crop")
    for index, line in enumerate(cells):
        if index:
            text.append("\n")
        for piece, style in line:
            text.append(piece, _style(style))
    return text


@dataclass(frozen=True, eq=False)
class Heatmap:
    """heatmap_cells as a rich renderable that lays itself out in the width it is given
    (`options.max_width`, as rich's ProgressBar does): whole words when they fit, else
    numbered columns named on a key line. Each width's layout is computed once."""

    weights: ArrayLike
    row_labels: Sequence[str]
    column_labels: Sequence[str]
    selected: int | None = None
    unit: str = "weights"
    shade_from_min: bool = False
    max_rows: int | None = None
    signed: bool = False
    keep_columns: Sequence[int] = ()
    absolute: bool = False
    _laid_out: dict[int | None, list[list[Piece]]] = field(
        default_factory=dict, init=False, repr=False
    )  # each width's cells; a replace() starts afresh

    def cells(self, width: int | None) -> list[list[Piece]]:
        """The picture in `width` cells (None: as wide as whole words need)."""
        found = self._laid_out.get(width)
        if found is None:
            found = self._laid_out[width] = heatmap_cells(
                self.weights,
                self.row_labels,
                self.column_labels,
                self.selected,
                unit=self.unit,
                shade_from_min=self.shade_from_min,
                max_rows=self.max_rows,
                signed=self.signed,
                keep_columns=self.keep_columns,
                width=width,
                absolute=self.absolute,
            )
        return found

    def height(self, width: int) -> int:
        """Its lines at `width`: a narrow heatmap adds a key line."""
        return len(self.cells(width)) if width else 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield heatmap_rich(self.cells(options.max_width))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """Narrowest: the row labels and one compact column; widest: every column with
        whole words and the legend on one line (both at most `options.max_width`)."""
        labels = [one_line(label) for label in self.row_labels]
        narrowest = 1 + label_width(labels) + 1 + cell_width(self.signed)
        widest = max((_line_width(line) for line in self.cells(None)), default=0)
        limit = options.max_width
        return Measurement(min(narrowest, widest, limit), min(widest, limit))


def _line_width(line: list[Piece]) -> int:
    return cell_len("".join(text for text, _ in line).rstrip())


def weight_bars(
    weights: ArrayLike,
    labels: Sequence[str],
    decimals: int = 2,
    width: int = 20,
    limit: int | None = None,
    ascii_only: bool = True,
) -> str:
    """One line per key: label, weight, a bar and a note on the strongest.

    With `limit`, only the strongest keys are listed, largest first.
    """
    row = np.asarray(weights, dtype=np.float64)
    strongest = int(np.argmax(row)) if row.size else -1
    order = list(range(len(row)))
    if limit is not None and limit < len(order):
        order = sorted(order, key=lambda i: -row[i])[:limit]
    shown = [labels[i] for i in order]
    name_width = min(max((cell_len(label) for label in shown), default=1), 12)
    arrow = "<-" if ascii_only else "\u2190"
    lines = []
    for index in order:
        value = float(row[index])
        bar = _bar(value * width, ascii_only)
        note = f"  {arrow} strongest" if index == strongest else ""
        name = ljust_cells(_fit(labels[index], name_width), name_width)
        lines.append(f"  {name} {value:.{decimals}f} {bar}{note}".rstrip())
    if limit is not None and limit < len(row):
        lines.append(f"  ... {len(row) - limit} weaker keys not listed")
    return "\n".join(lines)


def _bar(length: float, ascii_only: bool) -> str:
    if ascii_only:
        return "#" * round(length)
    whole = int(length)
    eighths = round((length - whole) * 8)
    if eighths == 8:
        whole, eighths = whole + 1, 0
    return "\u2588" * whole + ("" if eighths == 0 else chr(0x2590 - eighths))


def format_vector(values: ArrayLike, decimals: int = 3) -> str:
    return "[" + ", ".join(f"{v:.{decimals}f}" for v in np.asarray(values, dtype=np.float64)) + "]"
