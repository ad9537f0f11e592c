"""Two real Unix users submit into one class folder; neither can see the other's file.

Needs root (to make the users and switch to them); skipped otherwise.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import stat
from pathlib import Path
from typing import Any

import pytest

# Imported before any fork: the test users cannot read this interpreter's library folder.
import tui_course.commands.submit
import tui_course.content.course
import tui_course.progress.report
import tui_course.progress.store  # noqa: F401
from tests.classroom.conftest import STUDENTS, TEACHER, TEACHERS, as_user
from tui_course.classroom.folder import init_class
from tui_course.classroom.report import build_report
from tui_course.cli import main

pytestmark = [
    pytest.mark.skipif(
        os.geteuid() != 0, reason="needs root: makes two Unix users and submits as each"
    ),
    pytest.mark.usefixtures("accounts"),
]


def test_two_students_submit_and_the_teacher_reports(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention 101")
    site = shared / "site.toml"
    site.write_text(f'class_dir = "{class_dir}"\n', encoding="utf-8")
    site.chmod(0o644)
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    dropbox = class_dir / "dropbox"
    for name in STUDENTS:
        home = shared / name
        home.mkdir()
        os.chown(home, pwd.getpwnam(name).pw_uid, -1)

        def submit_now(home: Path = home) -> int:
            return main(["submit", "--data-dir", str(home / "data")])

        assert as_user(name, submit_now) == 0

    files = sorted(dropbox.iterdir())
    assert len(files) == 2
    teachers = grp.getgrnam(TEACHERS).gr_gid
    owners = set()
    for path in files:
        info = path.stat()
        assert stat.S_IMODE(info.st_mode) == 0o640
        assert info.st_gid == teachers  # the setgid folder gave the teacher's group
        owners.add(pwd.getpwuid(info.st_uid).pw_name)
    assert owners == set(STUDENTS)

    bob_file = next(p for p in files if p.name.startswith(f"{STUDENTS[1]}-"))

    def snoop() -> dict[str, str]:
        seen = {}
        for label, attempt in (
            ("list", lambda: os.listdir(dropbox)),
            ("read", lambda: bob_file.read_bytes()),
            ("delete", lambda: bob_file.unlink()),
        ):
            try:
                attempt()
                seen[label] = "allowed"
            except PermissionError:
                seen[label] = "denied"
        return seen

    assert as_user(STUDENTS[0], snoop) == {"list": "denied", "read": "denied", "delete": "denied"}

    def teacher_report() -> dict[str, Any]:
        report = build_report(dropbox, ["checkpoint", "exercises", "understanding"])
        return {
            "students": sorted(report.students),
            "problems": len(report.impostors) + len(report.rejected),
        }

    # a teacher who is not root reads it through the group alone
    seen = as_user(TEACHER, teacher_report, groups=(TEACHERS,))
    assert seen == {"students": sorted(STUDENTS), "problems": 0}

    # ann copies her file under bob's name: the owner check catches it
    def forge() -> str:
        from tui_course.classroom.submission import deliver

        data = json.loads((shared / STUDENTS[0] / "forged.json").read_text())
        return str(deliver(dropbox, json.dumps(data).encode(), STUDENTS[1]))

    forged = json.loads(bob_file.read_text())
    forged["quizzes"][0]["mastered"] = forged["quizzes"][0]["questions"]
    (shared / STUDENTS[0] / "forged.json").write_text(json.dumps(forged))
    (shared / STUDENTS[0] / "forged.json").chmod(0o644)
    as_user(STUDENTS[0], forge)
    report = build_report(dropbox, ["checkpoint"])
    assert [r.reason for r in report.impostors] == [
        f"names '{STUDENTS[1]}' but belongs to '{STUDENTS[0]}'"
    ]
