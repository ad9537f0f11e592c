"""A small TOML writer for quiz tables: the importer's output, checked by tomllib.

Strings are always single-line basic strings with every character TOML forbids
escaped, so no text (quotes, backslashes, newlines, `\"\"\"`) can end a value early.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\b": "\\b",
    "\f": "\\f",
}
_LIST_ONE_LINE = 72  # longer lists of strings get one item per line


def dumps(table: Mapping[str, Any]) -> str:
    """The table as TOML; raises ValueError if tomllib would not read back the same data."""
    text = "\n".join(_table_lines(table, ())) + "\n"
    if tomllib.loads(text) != _plain(table):
        raise ValueError("TOML writer produced text that reads back differently")
    return text


def string(text: str) -> str:
    out = ['"']
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else string(name)  # `$` would let "0\n" through


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value} in a quiz")
        return repr(value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, Sequence):
        items = [_value(item) for item in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= _LIST_ONE_LINE or not any(isinstance(v, str) for v in value):
            return one_line
        return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
    raise ValueError(f"cannot write a {type(value).__name__} in a quiz")


def _table_lines(table: Mapping[str, Any], path: tuple[str, ...]) -> list[str]:
    lines = [f"{_key(k)} = {_value(v)}" for k, v in table.items() if not _is_table_array(v)]
    for key, value in table.items():
        if _is_table_array(value):
            header = ".".join(_key(part) for part in (*path, key))
            for item in value:
                lines += ["", f"[[{header}]]", *_table_lines(item, (*path, key))]
    return lines


def _plain(value: Any) -> Any:
    """The data as tomllib returns it (tuples become lists), for the read-back check."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value
