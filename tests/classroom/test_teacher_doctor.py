"""`doctor` for a teacher: the group, the drop-box, clean rights, limits in force."""

from __future__ import annotations

import encodings.ascii  # noqa: F401  # imported before any fork: test users cannot read the stdlib
import os
from pathlib import Path

import pytest

from tests.classroom.conftest import STUDENTS, TEACHER, TEACHERS, as_user
from tui_course.classroom.config import SiteConfig
from tui_course.classroom.doctor import (
    BLOCKER,
    OK,
    WARN,
    limits_check,
    session_limits,
    teacher_checks,
)
from tui_course.classroom.folder import init_class
from tui_course.classroom.submission import deliver

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: real teacher accounts")


def by_name(checks: list[tuple[str, str, str]]) -> dict[str, tuple[str, str]]:
    return {name: (status, found) for name, status, found in checks}


def run_teacher_checks(site: SiteConfig) -> list[tuple[str, str, str]]:
    return [(c.name, c.status, c.found) for c in teacher_checks(site)]


@needs_root
def test_a_teacher_outside_the_group_is_told_before_the_report_fails(shared: Path) -> None:
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER)
    site = SiteConfig(None, class_dir=class_dir)
    as_user(STUDENTS[0], lambda: deliver(class_dir / "dropbox", b"{}", STUDENTS[0]) and None)
    outside = by_name(as_user(TEACHER, lambda: run_teacher_checks(site)))
    assert outside["teachers' group"][0] == BLOCKER
    assert f"is not in '{TEACHERS}'" in outside["teachers' group"][1]
    # the owner may list the folder, but the files are the group's to read
    assert outside["drop-box"][0] == BLOCKER and "cannot read" in outside["drop-box"][1]
    inside = by_name(as_user(TEACHER, lambda: run_teacher_checks(site), groups=(TEACHERS,)))
    assert inside["teachers' group"][0] == OK
    assert inside["drop-box"] == (OK, "readable: 1 file(s) from 1 account(s)")
    assert "class clean" not in inside  # the owner may clean


@needs_root
def test_a_teacher_who_does_not_own_the_drop_box_is_warned_about_clean(shared: Path) -> None:
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention")  # root's, as a bare root-run init
    site = SiteConfig(None, class_dir=class_dir)
    seen = by_name(as_user(TEACHER, lambda: run_teacher_checks(site), groups=(TEACHERS,)))
    assert seen["class clean"][0] == WARN and "only its owner or root" in seen["class clean"][1]
    assert "class.toml" not in seen  # 0664 and the teachers' group: editable without root


@pytest.mark.parametrize(
    ("files", "status", "text"),
    [
        (
            {"memory.max": "1073741824", "pids.max": "256", "cpu.max": "100000 100000"},
            OK,
            "memory 1.0 GiB, tasks 256, cpu 100%",
        ),
        ({"memory.max": "max", "pids.max": "max", "cpu.max": "max 100000"}, WARN, "not limited"),
    ],
)
def test_the_limits_in_force_are_read_from_the_sessions_cgroup(
    tmp_path: Path, files: dict[str, str], status: str, text: str
) -> None:
    cgroup = tmp_path / "cgroup"
    cgroup.write_text("0::/user.slice/user-1000.slice/session-3.scope\n")
    root = tmp_path / "sys"
    session = root / "user.slice/user-1000.slice/session-3.scope"
    session.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("memory pids cpu\n")
    for name, value in files.items():
        (session / name).write_text(value + "\n")
    check = limits_check(session_limits(cgroup, root))
    assert check.status == status and text in check.found
    assert limits_check(None).status == WARN


def test_a_kernel_that_lets_anyone_hard_link_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With fs.protected_hardlinks = 0 a student links another's submission (a file they
    cannot read) into the drop-box: the link moves that file's ctime, its arrival, past
    the deadline. Where it is 1 (Debian's default) link(2) refuses (EPERM)."""
    from tui_course.classroom import doctor

    setting = tmp_path / "protected_hardlinks"
    monkeypatch.setattr(doctor, "PROTECTED_HARDLINKS", setting)
    class_dir = tmp_path / "class"
    init_class(class_dir, grp_name(), 1, "Attention")
    site = SiteConfig(None, class_dir=class_dir)
    setting.write_text("0\n")
    status, found = by_name(run_teacher_checks(site))["hard links"]
    assert status == WARN and found.startswith("fs.protected_hardlinks = 0")
    setting.write_text("1\n")
    assert by_name(run_teacher_checks(site))["hard links"] == (OK, "fs.protected_hardlinks = 1")
    setting.unlink()  # a kernel without the setting: nothing to say
    assert "hard links" not in by_name(run_teacher_checks(site))


def grp_name() -> str:
    import grp

    return grp.getgrgid(os.getgid()).gr_name
