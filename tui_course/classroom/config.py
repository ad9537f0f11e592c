"""The site config (`/etc/attn-tui/config.toml` or `$ATTN_TUI_CONFIG`) and a class's `class.toml`.

Both are read strictly: an unknown key, a wrong type or a value out of range is one
line naming the file and the line, so an admin fixes it without guessing.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.content.errors import ContentError
from tui_course.paths import SITE_CONFIG_ENV, site_config_path

if TYPE_CHECKING:
    from tui_course.content.tomlfile import Field, TomlLines

CLASS_FILE = "class.toml"
MAX_SLOTS = 1024
MAX_CONFIG_BYTES = 64 * 1024
MAX_RUN_MINUTES = 7 * 24 * 60
DEFAULT_MAX_RUN_MINUTES = 30  # a training run holding a slot longer is stopped
SCHEDULERS = ("local", "slurm")
MAX_SLURM_MEM_MB = 16 * 1024 * 1024
MAX_SLURM_CPUS = 4096


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
    runs_per_user: int | None = None  # training runs one account may hold or wait for at once
    max_run_minutes: int | None = None  # when class.toml sets none (default 30)
    scheduler: str = "local"  # "slurm": training and recheck run as the user's Slurm jobs
    slurm: SlurmSettings | None = None  # set when scheduler = "slurm"


@dataclass(frozen=True)
class SlurmSettings:
    """The site config's [slurm] table: what every srun of the course asks for."""

    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    time_limit: int | None = None  # minutes
    mem: int | None = None  # MB
    cpus: int | None = None
    extra_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassConfig:
    path: Path
    course: str
    training_slots: int | None = None
    deadlines: Mapping[str, dt.datetime] = field(default_factory=dict)
    students_group: str | None = None  # every member gets a row in the report
    runs_per_user: int | None = None
    max_run_minutes: int | None = None  # a run holding a slot longer is stopped (default 30)


def _read_table(path: Path) -> tuple[dict[str, Any], TomlLines, str]:
    # Imported here: only a config file that exists is parsed (without one, no TOML at all).
    from tui_course.content.tomlfile import TomlLines, parse_toml, read_text

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
    _check_table(table, lines, shown, (), fields)


def _check_table(
    table: Mapping[str, Any],
    lines: TomlLines,
    shown: str,
    path: tuple[str, ...],
    fields: dict[str, Field],
) -> None:
    from tui_course.content.tomlfile import TableCheck

    label = f"[{'.'.join(path)}]" if path else ""
    try:
        TableCheck(shown, lines, path, label).check(table, fields)
    except ContentError as error:
        raise ConfigError(str(error)) from None


def _slots(
    table: Mapping[str, Any],
    lines: TomlLines,
    shown: str,
    key: str = "training_slots",
    highest: int = MAX_SLOTS,
) -> int | None:
    value = table.get(key)
    if value is not None and not 1 <= value <= highest:
        line = lines.line_of((), key)
        raise ConfigError(f"{shown}:{line}: '{key}' must be from 1 to {highest}")
    return value


def _expand_user(value: str, key: str, line: int | None, shown: str) -> Path:
    """`~/x` and `~user/x` resolved against the password database, or refused with the
    line: Path.expanduser raises RuntimeError for an unknown user, and start-up, submit
    and doctor all read this file."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        user = value[1:].split("/", 1)[0] or "(this user)"
        raise ConfigError(f"{shown}:{line}: '{key}': no user named {user!r}") from None


def _absolute(table: Mapping[str, Any], key: str, lines: TomlLines, shown: str) -> Path | None:
    value = table.get(key)
    if value is None:
        return None
    line = lines.line_of((), key)
    path = _expand_user(value, key, line, shown)
    if not value.strip() or not path.is_absolute() or "\0" in value:
        raise ConfigError(f"{shown}:{line}: '{key}' must be an absolute path, got {value!r}")
    return path


@cache
def site_fields() -> dict[str, Field]:
    from tui_course.content.tomlfile import Field

    return {
        "class_dir": Field((str,), "the class folder made by `attn-tui class init` (a path)"),
        "training_slots": Field((int,), "how many training runs may run at once (a number)"),
        "slots_dir": Field((str,), "where slot locks live when there is no class folder (a path)"),
        "student_shell": Field((bool,), "true when students also log in with a shell (true/false)"),
        "allow_code_without_bwrap": Field(
            (bool,), "true to check students' code with time and memory limits alone (true/false)"
        ),
        "runs_per_user": Field((int,), "training runs one account may have at once (default 1)"),
        "max_run_minutes": Field(
            (int,), f"minutes one training run may hold a slot (default {DEFAULT_MAX_RUN_MINUTES})"
        ),
        "scheduler": Field((str,), 'where training and recheck run: "local" or "slurm"'),
        "slurm": Field((dict,), "a table: partition, account, qos, time_limit, mem, cpus"),
    }


@cache
def slurm_fields() -> dict[str, Field]:
    from tui_course.content.tomlfile import Field

    return {
        "partition": Field((str,), "the Slurm partition jobs go to (a name)"),
        "account": Field((str,), "the Slurm account jobs are charged to (a name)"),
        "qos": Field((str,), "the Slurm quality of service (a name)"),
        "time_limit": Field((int,), "minutes one job may run (a number)"),
        "mem": Field((int,), "megabytes of memory per job (a number)"),
        "cpus": Field((int,), "CPUs per job (a number)"),
        "extra_args": Field((list,), "a list of srun arguments, passed as given", items=str),
    }


def _slurm_settings(
    table: Mapping[str, Any], lines: TomlLines, shown: str
) -> tuple[str, SlurmSettings | None]:
    """`scheduler` and its [slurm] table: names without spaces, numbers in range."""
    scheduler = table.get("scheduler", "local")
    if scheduler not in SCHEDULERS:
        line = lines.line_of((), "scheduler")
        raise ConfigError(
            f'{shown}:{line}: \'scheduler\' must be "local" or "slurm", got {scheduler!r}'
        )
    slurm = table.get("slurm")
    if slurm is None:
        return scheduler, SlurmSettings() if scheduler == "slurm" else None
    _check_table(slurm, lines, shown, ("slurm",), slurm_fields())
    for key in ("partition", "account", "qos"):
        value = slurm.get(key)
        if value is not None and (not value or any(c.isspace() or ord(c) < 32 for c in value)):
            line = lines.line_of(("slurm",), key)
            raise ConfigError(f"{shown}:{line}: slurm '{key}' must be a name without spaces")
    for key, highest in (
        ("time_limit", MAX_RUN_MINUTES),
        ("mem", MAX_SLURM_MEM_MB),
        ("cpus", MAX_SLURM_CPUS),
    ):
        value = slurm.get(key)
        if value is not None and not 1 <= value <= highest:
            line = lines.line_of(("slurm",), key)
            raise ConfigError(f"{shown}:{line}: slurm '{key}' must be from 1 to {highest}")
    extra = slurm.get("extra_args", [])
    for item in extra:
        if "\0" in item or "\n" in item:
            line = lines.line_of(("slurm",), "extra_args")
            raise ConfigError(f"{shown}:{line}: slurm 'extra_args' holds a control character")
    settings = SlurmSettings(
        partition=slurm.get("partition"),
        account=slurm.get("account"),
        qos=slurm.get("qos"),
        time_limit=slurm.get("time_limit"),
        mem=slurm.get("mem"),
        cpus=slurm.get("cpus"),
        extra_args=tuple(extra),
    )
    return scheduler, settings if scheduler == "slurm" else None


def load_site_config(path: Path | None = None) -> SiteConfig:
    """The site config; a missing file is an empty config, a broken one a ConfigError."""
    path = site_config_path() if path is None else path
    if not path.exists():
        if os.environ.get(SITE_CONFIG_ENV):
            raise ConfigError(f"{path}: not found (named by ${SITE_CONFIG_ENV})")
        return SiteConfig(None)
    table, lines, shown = _read_table(path)
    _check(table, lines, shown, site_fields())
    scheduler, slurm = _slurm_settings(table, lines, shown)
    return SiteConfig(
        path,
        class_dir=_absolute(table, "class_dir", lines, shown),
        training_slots=_slots(table, lines, shown),
        slots_dir=_absolute(table, "slots_dir", lines, shown),
        student_shell=table.get("student_shell", False),
        allow_code_without_bwrap=bool(table.get("allow_code_without_bwrap", False)),
        runs_per_user=_slots(table, lines, shown, "runs_per_user"),
        max_run_minutes=_slots(table, lines, shown, "max_run_minutes", MAX_RUN_MINUTES),
        scheduler=scheduler,
        slurm=slurm,
    )


@cache
def class_fields() -> dict[str, Field]:
    from tui_course.content.tomlfile import Field

    return {
        "course": Field((str,), "the course name shown in reports (text)", required=True),
        "training_slots": Field((int,), "how many training runs may run at once (a number)"),
        "deadlines": Field((dict,), "a table of quiz id = date and time"),
        "students_group": Field((str,), "the students' Unix group: each member gets a report row"),
        "runs_per_user": Field((int,), "training runs one account may have at once (default 1)"),
        "max_run_minutes": Field(
            (int,), f"minutes one training run may hold a slot (default {DEFAULT_MAX_RUN_MINUTES})"
        ),
    }


def load_class_config(class_dir: Path) -> ClassConfig:
    path = class_dir / CLASS_FILE
    table, lines, shown = _read_table(path)
    _check(table, lines, shown, class_fields())
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
        when = when if when.tzinfo else when.replace(tzinfo=dt.UTC)
        try:
            when.astimezone(dt.UTC)
        except OverflowError:  # 0001-01-01T00:00:00+23:59 has no UTC time to compare
            raise ConfigError(f"{shown}:{line}: deadline for '{quiz_id}' is out of range") from None
        deadlines[quiz_id] = when
    return ClassConfig(
        path,
        course=table["course"],
        training_slots=_slots(table, lines, shown),
        deadlines=deadlines,
        students_group=table.get("students_group"),
        runs_per_user=_slots(table, lines, shown, "runs_per_user"),
        max_run_minutes=_slots(table, lines, shown, "max_run_minutes", MAX_RUN_MINUTES),
    )


def default_slots() -> int:
    """Half the cores: each run trains on two threads."""
    return max(1, (os.cpu_count() or 2) // 2)
