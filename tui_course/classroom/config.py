"""The site config (`/etc/attn-tui/config.toml` or `$ATTN_TUI_CONFIG`) and a class's `class.toml`.

Both are read strictly: an unknown key, a wrong type or a value out of range is one
line naming the file and the line, so an admin fixes it without guessing.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui_course.content.errors import ContentError
from tui_course.content.tomlfile import Field, TableCheck, TomlLines, parse_toml, read_text

SITE_CONFIG_ENV = "ATTN_TUI_CONFIG"
SITE_CONFIG_PATH = Path("/etc/attn-tui/config.toml")
CLASS_FILE = "class.toml"
MAX_SLOTS = 1024
MAX_CONFIG_BYTES = 64 * 1024


class ConfigError(Exception):
    """A site or class config that cannot be used, as one `path:line: message` line."""


@dataclass(frozen=True)
class SiteConfig:
    path: Path | None  # None: no site config file exists
    class_dir: Path | None = None
    training_slots: int | None = None
    slots_dir: Path | None = None  # where slot locks live when there is no class folder
    student_shell: bool = False  # students also have a shell here ($EDITOR may open)
    # a class server runs student code only under bwrap unless this says otherwise
    allow_code_without_bwrap: bool = False


@dataclass(frozen=True)
class ClassConfig:
    path: Path
    course: str
    training_slots: int | None = None
    deadlines: Mapping[str, dt.datetime] = field(default_factory=dict)


def site_config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    chosen = env.get(SITE_CONFIG_ENV)
    return Path(chosen).expanduser() if chosen else SITE_CONFIG_PATH


def _read_table(path: Path) -> tuple[dict[str, Any], TomlLines, str]:
    shown = str(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ConfigError(f"{shown}: cannot read: {error.strerror or error}") from None
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{shown}: too large for a config file ({size} bytes)")
    if size == 0:  # an empty file (or /dev/null) sets nothing
        return {}, TomlLines(""), shown
    try:
        text = read_text(path, shown)
        return parse_toml(text, shown), TomlLines(text), shown
    except ContentError as error:
        raise ConfigError(str(error)) from None


def _check(
    table: Mapping[str, Any], lines: TomlLines, shown: str, fields: dict[str, Field]
) -> None:
    try:
        TableCheck(shown, lines, (), "").check(table, fields)
    except ContentError as error:
        raise ConfigError(str(error)) from None


def _slots(table: Mapping[str, Any], lines: TomlLines, shown: str) -> int | None:
    value = table.get("training_slots")
    if value is not None and not 1 <= value <= MAX_SLOTS:
        line = lines.line_of((), "training_slots")
        raise ConfigError(f"{shown}:{line}: 'training_slots' must be from 1 to {MAX_SLOTS}")
    return value


def _absolute(table: Mapping[str, Any], key: str, lines: TomlLines, shown: str) -> Path | None:
    value = table.get(key)
    if value is None:
        return None
    path = Path(value).expanduser()
    if not value.strip() or not path.is_absolute():
        line = lines.line_of((), key)
        raise ConfigError(f"{shown}:{line}: '{key}' must be an absolute path, got {value!r}")
    return path


SITE_FIELDS = {
    "class_dir": Field((str,), "the class folder made by `attn-tui class init` (a path)"),
    "training_slots": Field((int,), "how many training runs may run at once (a number)"),
    "slots_dir": Field((str,), "where slot locks live when there is no class folder (a path)"),
    "student_shell": Field((bool,), "true when students also log in with a shell (true/false)"),
    "allow_code_without_bwrap": Field(
        (bool,), "true to check students' code with time and memory limits alone (true/false)"
    ),
}


def load_site_config(path: Path | None = None) -> SiteConfig:
    """The site config; a missing file is an empty config, a broken one a ConfigError."""
    path = site_config_path() if path is None else path
    if not path.exists():
        if os.environ.get(SITE_CONFIG_ENV):
            raise ConfigError(f"{path}: not found (named by ${SITE_CONFIG_ENV})")
        return SiteConfig(None)
    table, lines, shown = _read_table(path)
    _check(table, lines, shown, SITE_FIELDS)
    return SiteConfig(
        path,
        class_dir=_absolute(table, "class_dir", lines, shown),
        training_slots=_slots(table, lines, shown),
        slots_dir=_absolute(table, "slots_dir", lines, shown),
        student_shell=table.get("student_shell", False),
        allow_code_without_bwrap=bool(table.get("allow_code_without_bwrap", False)),
    )


CLASS_FIELDS = {
    "course": Field((str,), "the course name shown in reports (text)", required=True),
    "training_slots": Field((int,), "how many training runs may run at once (a number)"),
    "deadlines": Field((dict,), "a table of quiz id = date and time"),
}


def load_class_config(class_dir: Path) -> ClassConfig:
    path = class_dir / CLASS_FILE
    table, lines, shown = _read_table(path)
    _check(table, lines, shown, CLASS_FIELDS)
    deadlines: dict[str, dt.datetime] = {}
    for quiz_id, when in table.get("deadlines", {}).items():
        line = lines.line_of(("deadlines",), quiz_id)
        if isinstance(when, dt.date) and not isinstance(when, dt.datetime):
            when = dt.datetime.combine(when, dt.time(23, 59, 59))
        if not isinstance(when, dt.datetime):
            raise ConfigError(
                f"{shown}:{line}: deadline for '{quiz_id}' must be a date or date-time"
                " (e.g. 2026-12-15T23:59:00Z)"
            )
        deadlines[quiz_id] = when if when.tzinfo else when.replace(tzinfo=dt.UTC)
    return ClassConfig(
        path,
        course=table["course"],
        training_slots=_slots(table, lines, shown),
        deadlines=deadlines,
    )


def default_slots() -> int:
    """Half the cores: each run trains on two threads."""
    return max(1, (os.cpu_count() or 2) // 2)
