"""`attn-tui doctor`: each problem with the line that fixes it; non-zero exit on a blocker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_course.classroom.config import load_site_config
from tui_course.classroom.doctor import (
    BLOCKER,
    OK,
    WARN,
    Check,
    class_checks,
    data_checks,
    slot_check,
    terminal_checks,
    train_check,
)
from tui_course.classroom.slots import training_slots
from tui_course.cli import main

GOOD_ENV = {"TERM": "xterm-256color", "LANG": "C.UTF-8"}


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


def test_a_good_terminal() -> None:
    checks = by_name(list(terminal_checks(GOOD_ENV, os.terminal_size((80, 24)), True)))
    assert {name: c.status for name, c in checks.items()} == {
        "terminal": OK,
        "TERM": OK,
        "colours": OK,
        "locale": OK,
    }


@pytest.mark.parametrize(
    ("env", "size", "utf8", "name", "status", "fix"),
    [
        (GOOD_ENV, (60, 20), True, "terminal", WARN, "make the window at least 80x24"),
        (GOOD_ENV, (30, 10), True, "terminal", BLOCKER, "make the window at least 80x24"),
        ({"LANG": "C.UTF-8"}, (80, 24), True, "TERM", WARN, "export TERM=xterm-256color"),
        ({**GOOD_ENV, "TERM": "dumb"}, (80, 24), True, "TERM", WARN, "export TERM="),
        ({**GOOD_ENV, "TERM": "unknown"}, (80, 24), True, "TERM", BLOCKER, "export TERM="),
        ({**GOOD_ENV, "TERM": "xterm"}, (80, 24), True, "colours", WARN, "export TERM="),
        ({**GOOD_ENV, "LANG": "C"}, (80, 24), False, "locale", WARN, "export LANG=C.UTF-8"),
    ],
)
def test_terminal_problems_come_with_their_fix(
    env: dict[str, str],
    size: tuple[int, int],
    utf8: bool,
    name: str,
    status: str,
    fix: str,
) -> None:
    check = by_name(list(terminal_checks(env, os.terminal_size(size), utf8)))[name]
    assert check.status == status
    assert check.fix.startswith(fix)
    if name == "TERM" and status == WARN:  # where plain mode is the start, doctor says so
        assert "attn-tui --plain" in check.fix and "plain mode" in check.found


def test_no_color_is_fine() -> None:
    env = {**GOOD_ENV, "TERM": "xterm", "NO_COLOR": "1"}
    check = by_name(list(terminal_checks(env, os.terminal_size((80, 24)), True)))["colours"]
    assert check.status == OK and "NO_COLOR" in check.found


def test_data_folder_modes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (only,) = data_checks(data)
    assert only.status == OK and "made on first start" in only.found
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (only,) = data_checks(data)
    assert (only.status, only.fix) == (WARN, f"chmod 700 {data}")
    data.chmod(0o700)
    (data / "progress.db").touch(mode=0o644)
    (data / "progress.db").chmod(0o644)
    folder, database = data_checks(data)
    assert folder.status == OK
    assert (database.status, database.fix) == (WARN, f"chmod 600 {data / 'progress.db'}")
    (tmp_path / "file").touch()
    (only,) = data_checks(tmp_path / "file")
    assert only.status == BLOCKER


def test_train_extra() -> None:
    assert train_check(lambda: True).status == OK
    missing = train_check(lambda: False)
    assert missing.status == WARN and missing.fix.startswith("pip install 'attn-tui[train]'")


def test_class_folder_and_pending(class_dir: Path, site_config: Path, tmp_path: Path) -> None:
    site = load_site_config()
    assert [c.status for c in class_checks(site, tmp_path / "data")] == [OK]
    (class_dir / "dropbox").chmod(0o2777)
    (problem,) = class_checks(site, tmp_path / "data")
    assert problem.status == WARN
    assert problem.fix == f"chmod 3773 {class_dir / 'dropbox'}"
    pending = tmp_path / "data" / "pending"
    pending.mkdir(parents=True)
    (pending / "0001-x.json").write_text("{}")
    checks = list(class_checks(site, tmp_path / "data"))
    assert checks[-1].name == "submissions" and checks[-1].fix == "attn-tui submit"


def test_slot_state(class_dir: Path, site_config: Path) -> None:
    site = load_site_config()
    # class.toml's 2 wins over the site config's 1
    assert slot_check(site).found.startswith("0 of 2 in use, 0 waiting")
    held = training_slots(site).try_take()
    assert held is not None
    assert slot_check(site).found.startswith("1 of 2 in use")
    held.release()
    check = slot_check(site)
    assert check.status == OK and check.found.startswith("0 of 2 in use")


def test_doctor_command_exit_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    assert main(["doctor", "--data-dir", str(tmp_path / "data")]) == 0
    assert "0 blocker(s)" in capsys.readouterr().out
    site = tmp_path / "site.toml"
    site.write_text("class_dir = 1\n")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    assert main(["doctor", "--data-dir", str(tmp_path / "data")]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("blocker"))
    assert line.split(None, 3)[1:3] == ["site", "config"]
    assert line.split(None, 3)[3].startswith(f"{site}:1: 'class_dir' must be")
    monkeypatch.setenv("ATTN_TUI_CONFIG", os.devnull)
    monkeypatch.setenv("TERM", "dumb")  # plain mode works there: said, not a blocker
    assert main(["doctor", "--data-dir", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert "starts in plain mode" in out and "attn-tui --plain" in out


def test_site_config_writable_by_others_is_flagged(tmp_path: Path) -> None:
    from tui_course.classroom.doctor import site_check

    path = tmp_path / "site.toml"
    path.write_text('class_dir = "/srv/c"\n')
    path.chmod(0o666)
    check = site_check(load_site_config(path))
    assert (check.status, check.fix) == (WARN, f"chmod 644 {path}")
    path.chmod(0o644)
    assert site_check(load_site_config(path)).status == OK


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder to another user")
def test_system_slot_folder_of_another_user_is_flagged(tmp_path: Path) -> None:
    folder = tmp_path / "slots"
    site = tmp_path / "site.toml"
    site.write_text(f'slots_dir = "{folder}"\n')
    config = load_site_config(site)
    training_slots(config)  # made on first use, mode 1777
    assert slot_check(config).status == OK
    os.chown(folder, 65534, -1)  # made by a student (nobody here)
    check = slot_check(config)
    assert check.status == WARN and "belongs to nobody, not root" in check.found
    assert check.fix.startswith("set slots_dir in")


def test_doctor_names_the_sandbox_level_and_its_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui_course.classroom.config import SiteConfig
    from tui_course.classroom.doctor import sandbox_check
    from tui_course.sandbox.level import BWRAP_ENV, forget_probe

    monkeypatch.setenv(BWRAP_ENV, "")  # bwrap made unavailable
    forget_probe()
    try:
        home = sandbox_check(SiteConfig(None))
        server = sandbox_check(SiteConfig(None, class_dir=Path("/srv/class")))
        allowed = sandbox_check(
            SiteConfig(None, class_dir=Path("/srv/class"), allow_code_without_bwrap=True)
        )
    finally:
        forget_probe()
    assert (home.status, home.fix) == (WARN, "sudo apt-get install bubblewrap")
    assert home.found.startswith("limits only")
    assert "code checks are off on this class server" in server.found
    assert "off" not in allowed.found


def test_a_class_server_runs_no_listing_without_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lesson listings obey the same rule as checks: bwrap only, unless the site allows less."""
    from tui_course.classroom import config
    from tui_course.classroom.config import SiteConfig
    from tui_course.content.segments import ListingRunner
    from tui_course.listings.run import ListingOutcome, run_listing
    from tui_course.sandbox.level import BWRAP_ENV, forget_probe

    monkeypatch.setenv(BWRAP_ENV, "")
    monkeypatch.setattr(
        config, "load_site_config", lambda path=None: SiteConfig(None, class_dir=Path("/srv/c"))
    )
    forget_probe()
    try:
        result = run_listing("print('hi')", ListingRunner.NUMPY)
    finally:
        forget_probe()
    assert result.outcome is ListingOutcome.UNAVAILABLE
    assert "switched off on this class server" in result.detail
    assert result.stdout == ""
