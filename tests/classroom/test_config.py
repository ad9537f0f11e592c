"""Site config and class.toml: strict keys, one line naming file and line."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tui_course.classroom.config import (
    ConfigError,
    default_slots,
    load_class_config,
    load_site_config,
)


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_site_config_values(tmp_path: Path) -> None:
    path = write(tmp_path, 'class_dir = "/srv/class"\ntraining_slots = 3\n')
    site = load_site_config(path)
    assert site.class_dir == Path("/srv/class")
    assert site.training_slots == 3
    assert site.slots_dir is None


def test_env_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, 'class_dir = "/srv/other"\n')
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(path))
    assert load_site_config().class_dir == Path("/srv/other")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(
        ConfigError, match=r"missing.toml: not found \(named by \$ATTN_TUI_CONFIG\)"
    ):
        load_site_config()


def test_no_site_config_file_means_no_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATTN_TUI_CONFIG")
    site = load_site_config(tmp_path / "none.toml")
    assert (site.path, site.class_dir, site.training_slots) == (None, None, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('class_dir = "/srv/c"\nclassdir = "/x"\n', r"config.toml:2: unknown key 'classdir'"),
        ("training_slots = 0\n", r"config.toml:1: 'training_slots' must be from 1 to 1024"),
        ('training_slots = "2"\n', r"config.toml:1: 'training_slots' must be how many"),
        ("\n\ntraining_slots = true\n", r"config.toml:3: 'training_slots' must be"),
        ('class_dir = "srv/c"\n', r"config.toml:1: 'class_dir' must be an absolute path"),
        ("class_dir = \n", r"config.toml:1: invalid TOML"),
        ("x" * 70_000, r"too large for a config file"),
    ],
)
def test_site_config_errors_name_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected) as caught:
        load_site_config(write(tmp_path, text))
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(str(tmp_path))


def test_class_config_with_deadlines(tmp_path: Path) -> None:
    write(
        tmp_path,
        'course = "Attention"\ntraining_slots = 2\n[deadlines]\n'
        "exercises = 2026-12-15T23:59:00Z\ncheckpoint = 2026-12-01\n",
        "class.toml",
    )
    config = load_class_config(tmp_path)
    assert config.course == "Attention"
    assert config.training_slots == 2
    assert config.deadlines["exercises"] == dt.datetime(2026, 12, 15, 23, 59, tzinfo=dt.UTC)
    assert config.deadlines["checkpoint"] == dt.datetime(2026, 12, 1, 23, 59, 59, tzinfo=dt.UTC)


def test_class_config_bad_deadline_names_its_line(tmp_path: Path) -> None:
    write(tmp_path, 'course = "A"\n[deadlines]\nexercises = "soon"\n', "class.toml")
    with pytest.raises(ConfigError, match=r"class.toml:3: deadline for 'exercises'"):
        load_class_config(tmp_path)


def test_class_config_needs_a_course(tmp_path: Path) -> None:
    write(tmp_path, "training_slots = 2\n", "class.toml")
    with pytest.raises(ConfigError, match=r"missing required key 'course'"):
        load_class_config(tmp_path)


def test_default_slots_is_half_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert default_slots() == 4
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert default_slots() == 1


# issue 18: bounded parsers, ~user paths


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('class_dir = "~nonexistentuser/x"\n', r"config.toml:1: 'class_dir': no user named"),
        ("\n\ntraining_slots = " + "9" * 5001 + "\n", r"config.toml:3: invalid TOML: a number"),
        ('slots_dir = "~nobody-here-x/slots"\n', r"config.toml:1: 'slots_dir': no user named"),
    ],
)
def test_a_site_config_no_parser_can_take_is_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_site_config(write(tmp_path, text))


def test_a_deadline_with_no_utc_time_is_refused_with_its_line(tmp_path: Path) -> None:
    write(
        tmp_path, 'course = "A"\n[deadlines]\nexercises = 0001-01-01T00:00:00+23:59\n', "class.toml"
    )
    with pytest.raises(
        ConfigError, match=r"class.toml:3: deadline for 'exercises' is out of range"
    ):
        load_class_config(tmp_path)


def test_start_up_names_the_line_of_a_tilde_user_class_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_course.classroom.link import ClassLink

    site = write(tmp_path, 'class_dir = "~nonexistentuser/x"\n')
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    link, problem = ClassLink.from_site(tmp_path / "data")  # what the app does at start
    assert link is None and problem is not None
    assert f"{site}:1: 'class_dir': no user named 'nonexistentuser'" in problem


@pytest.mark.parametrize("command", [["submit"], ["doctor"]])
def test_submit_and_doctor_survive_a_tilde_user_class_dir(
    tmp_path: Path, command: list[str]
) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    site = write(tmp_path, 'class_dir = "~nonexistentuser/x"\n')
    env = {**os.environ, "ATTN_TUI_CONFIG": str(site), "ATTN_TUI_DATA_DIR": str(tmp_path / "d")}
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    combined = result.stdout + result.stderr
    assert "Traceback" not in combined and "unexpected error" not in combined
    assert f"{site}:1: 'class_dir': no user named 'nonexistentuser'" in combined
    assert not list((tmp_path / "d").glob("crash-*.log")) if (tmp_path / "d").exists() else True
