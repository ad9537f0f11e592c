"""CSV that a spreadsheet opens as data: one writer for every CSV the app prints.

A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to
Excel, LibreOffice and Google Sheets (`=HYPERLINK(...)` in a quiz title runs when the
teacher opens the file). As the OWASP advice on CSV injection says, such a cell is
prefixed with a single quote and wrapped in double quotes (inner quotes doubled).
"""

from __future__ import annotations

from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> str:
    """One cell as CSV text: quoted where needed, formulas neutralised."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS):
        return "\"'" + text.replace('"', '""') + '"'
    if any(mark in text for mark in (",", '"', "\n", "\r")):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """Rows as CSV, one `\\n`-terminated line each (None is an empty cell)."""
    return "".join(",".join(safe_cell(cell) for cell in row) + "\n" for row in rows)
