"""Reading TOML content strictly, with line numbers for every complaint.

tomllib reports lines for syntax errors only; TomlLines scans the text once so
schema errors (unknown key, wrong type) can name the line of the offending key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui_course.content.errors import ContentError
from tui_course.content.text import strip_control_deep
from tui_course.text.safe import clean, visible

_AOT_HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.-]+)\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")
_KEY = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=\s*(.*)$""")
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")

TablePath = tuple[str | int, ...]


MAX_FILE_BYTES = 4 * 1024 * 1024  # the largest shipped file is 10 KB
MAX_LINE_CHARS = 20_000  # drawing a 1 MB line froze the app for seconds


def read_text(path: Path, shown: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file's text, or a ContentError saying plainly why it cannot be read."""
    if path.is_dir():
        raise ContentError(shown, None, "is a directory, expected a file")
    if not path.exists():
        raise ContentError(shown, None, "cannot read: no such file")
    try:
        if not path.is_file():  # a FIFO or a device would block or never end
            raise ContentError(shown, None, "is not a regular file")
        if path.stat().st_size > max_bytes:
            limit = f"{max_bytes // 1024} KB"
            raise ContentError(shown, None, f"is larger than {limit}; content files are small")
        data = path.read_bytes()
    except OSError as error:
        raise ContentError(shown, None, f"cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ContentError(shown, line, "is not valid UTF-8 text") from None
    if not text.strip():
        raise ContentError(shown, None, "is empty")
    if len(text) > MAX_LINE_CHARS:
        for number, text_line in enumerate(text.splitlines(), start=1):
            if len(text_line) > MAX_LINE_CHARS:
                message = f"line is longer than {MAX_LINE_CHARS} characters"
                raise ContentError(shown, number, message)
    return text.removeprefix("\ufeff")


MAX_NESTING = 32  # arrays and inline tables inside each other; content needs 2 or 3


# Strings and comments (whose brackets do not count), brackets and newlines; the rest is skipped.
_NESTING_TOKENS = re.compile(
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'''.*?'''"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[\]{}\n]",
    re.DOTALL,
)


def check_nesting(text: str, shown: str, first_line: int = 1) -> None:
    """Refuse deeply nested arrays before tomllib, which recurses (500 deep: RecursionError).

    Brackets inside strings and comments do not count.
    """
    depth = 0
    line = first_line
    for match in _NESTING_TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_NESTING:
                raise ContentError(shown, line, f"nested more than {MAX_NESTING} deep")
        elif token in ("]", "}"):
            depth = max(depth - 1, 0)
        else:
            line += token.count("\n")


def _check_keys(value: Any, shown: str) -> None:
    """A key with control or invisible characters is refused, not cleaned: cleaned, it
    could silently replace another key ("ti\\u200btle" overwriting "title")."""
    if isinstance(value, list):
        for item in value:
            _check_keys(item, shown)
    elif isinstance(value, dict):
        for key, item in value.items():
            if clean(key) != key:
                message = f"key '{visible(key)}' holds control or invisible characters"
                raise ContentError(shown, None, message)
            _check_keys(item, shown)


def parse_toml(text: str, shown: str, first_line: int = 1) -> dict[str, Any]:
    """Parse TOML with control characters removed from every string value and key.

    Syntax errors and nesting deeper than MAX_NESTING become ContentError with the
    file's line number.
    """
    check_nesting(text, shown, first_line)
    try:
        data = tomllib.loads(text)
        _check_keys(data, shown)
        return strip_control_deep(data)  # type: ignore[no-any-return]
    except RecursionError:
        raise ContentError(shown, None, "invalid TOML: nested too deeply") from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = _TOML_LINE.search(message)
        line = first_line + int(match.group(1)) - 1 if match else None
        message = _TOML_LINE.sub("", message).strip()
        raise ContentError(shown, line, f"invalid TOML: {message}") from None
    except ValueError:  # an integer past Python's digit limit (tomllib lets it through)
        long_number = re.search(r"\d[\d_]{4000,}", text)
        line = first_line + text.count("\n", 0, long_number.start()) if long_number else None
        raise ContentError(shown, line, "invalid TOML: a number too long") from None


@dataclass
class TomlLines:
    """Where each table header and key sits in a TOML text (1-based, offset applied)."""

    text: str
    first_line: int = 1
    tables: dict[TablePath, int] = field(default_factory=dict)
    keys: dict[TablePath, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        path: TablePath = ()
        counts: dict[tuple[TablePath, str], int] = {}
        closing: str | None = None
        for number, line in enumerate(self.text.splitlines(), start=self.first_line):
            if closing is not None:
                if closing in line:
                    closing = None
                continue
            header = _AOT_HEADER.match(line)
            if header:
                *parents, name = header.group(1).split(".")
                parent = path[: 2 * len(parents)] if parents else ()
                index = counts.get((parent, name), 0)
                counts[(parent, name)] = index + 1
                path = (*parent, name, index)
                self.tables.setdefault(path, number)
                continue
            header = _TABLE_HEADER.match(line)
            if header:
                path = tuple(header.group(1).split("."))
                self.tables.setdefault(path, number)
                continue
            key = _KEY.match(line)
            if key:
                name = key.group(1) or key.group(2) or key.group(3)
                self.keys.setdefault((*path, name), number)
                value = key.group(4)
                for quote in ('"""', "'''"):
                    if value.startswith(quote) and value.count(quote) == 1:
                        closing = quote

    def line_of(self, path: TablePath, key: str | None = None) -> int | None:
        if key is not None and (*path, key) in self.keys:
            return self.keys[(*path, key)]
        if path in self.tables:
            return self.tables[path]
        return self.first_line if not path else None


@dataclass(frozen=True)
class Field:
    """One allowed key of a table: accepted Python types and a phrase for errors."""

    types: tuple[type, ...]
    describe: str
    required: bool = False
    items: type | None = None  # element type, for lists


def _type_ok(value: object, spec: Field) -> bool:
    if isinstance(value, bool) and bool not in spec.types:
        return False
    if not isinstance(value, spec.types):
        return False
    if spec.items is not None and isinstance(value, list):
        return all(
            isinstance(item, spec.items) and not (isinstance(item, bool) and spec.items is not bool)
            for item in value
        )
    return True


@dataclass(frozen=True)
class TableCheck:
    """Checks one TOML table against its fields and reports the key's line."""

    shown: str
    lines: TomlLines
    path: TablePath
    label: str  # how the message names the table, e.g. "question 3"

    def entry(self, key: str, index: int) -> TableCheck:
        """The check of entry `index` of this table's [[...key]] array ("question 2 case 3")."""
        label = f"{self.label} {key} {index + 1}"
        return TableCheck(self.shown, self.lines, (*self.path, key, index), label)

    def error(self, message: str, key: str | None = None) -> ContentError:
        prefix = f"{self.label}: " if self.label else ""
        return ContentError(self.shown, self.lines.line_of(self.path, key), prefix + message)

    def check(self, table: Mapping[str, Any], fields: Mapping[str, Field]) -> None:
        for key in table:
            if key not in fields:
                allowed = ", ".join(sorted(fields))
                raise self.error(f"unknown key '{key}' (allowed: {allowed})", key)
        for key, spec in fields.items():
            if key not in table:
                if spec.required:
                    raise self.error(f"missing required key '{key}' ({spec.describe})")
                continue
            if not _type_ok(table[key], spec):
                raise self.error(f"'{key}' must be {spec.describe}", key)
