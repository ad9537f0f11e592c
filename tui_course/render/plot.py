"""A small line plot in plain characters, for training curves that grow epoch by epoch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

MARKERS = "*o+x"


def line_plot(
    series: Mapping[str, Sequence[float]],
    width: int = 40,
    height: int = 8,
    low: float = 0.0,
    high: float = 1.0,
    total: int | None = None,
) -> str:
    """Each series is drawn with its own marker (`*`, `o`, ...); a legend names them.

    The x axis spans `total` points (say, all planned epochs) so the curve grows
    from the left as epochs finish; y spans [low, high].
    """
    names = list(series)
    count = max([total or 0, *(len(values) for values in series.values()), 1])
    width = max(width, 10)
    grid = [[" "] * width for _ in range(height)]
    for marker, name in zip(MARKERS, names, strict=False):
        for index, value in enumerate(series[name]):
            x = 0 if count == 1 else round(index * (width - 1) / (count - 1))
            fraction = (min(max(value, low), high) - low) / ((high - low) or 1.0)
            y = height - 1 - round(fraction * (height - 1))
            grid[y][x] = marker if grid[y][x] in (" ", marker) else "#"
    label_top, label_low = f"{high:.2f}", f"{low:.2f}"
    pad = max(len(label_top), len(label_low))
    lines = []
    for row, cells in enumerate(grid):
        label = label_top if row == 0 else label_low if row == height - 1 else ""
        lines.append(f"{label.rjust(pad)} |{''.join(cells)}".rstrip())
    lines.append(" " * pad + " +" + "-" * width)
    lines.append(" " * pad + f"  1{('epoch ' + str(count)).rjust(width - 1)}")
    entries = [f"{marker} {name}" for marker, name in zip(MARKERS, names, strict=False)]
    if len(names) > 1:
        entries.append("# both")
    room = width  # the legend keeps within the plot's own width, on as many lines as it needs
    legend = [""]
    for entry in entries:
        joined = f"{legend[-1]}   {entry}" if legend[-1] else entry
        if len(joined) <= room or not legend[-1]:
            legend[-1] = joined
        else:
            legend.append(entry)
    lines.extend(" " * pad + "  " + line for line in legend)
    return "\n".join(lines)
