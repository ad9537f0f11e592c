"""Issue 18: what one student can do to the class report, and the teacher's clean-up.

Files owned by another student are made by chown (root) or by that student's own
process (as_user); skipped with the reason when not root.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pwd
from pathlib import Path

import pytest

from tests.classroom.conftest import (
    PUPILS,
    STUDENTS,
    TEACHER,
    TEACHERS,
    as_user,
    drop,
)
from tests.classroom.conftest import submission as payload
from tui_course.classroom.folder import init_class
from tui_course.classroom.report import (
    MAX_FILES_PER_OWNER,
    MAX_UNKNOWN_QUIZZES,
    build_report,
    group_members,
    report_csv,
    report_json,
    report_table,
)
from tui_course.classroom.submission import encode_submission, login_name
from tui_course.cli import main

QUIZZES = ["checkpoint", "exercises"]
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: files of another owner")


def hostile(me: str, **change: object) -> bytes:
    data = payload(me, "2026-11-30T08:00:00Z", checkpoint=(5, 5))
    data.update(change)
    return encode_submission(data)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"format": "attn-tui-submission", "n": ' + b"9" * 5001 + b"}", "a number too long"),
        ("last_activity", "'last_activity' is not a time"),
        ("wrong types", "is not a count"),
        ("quizzes object", "'quizzes' is not a list"),
        ("deep", "not JSON"),
    ],
)
def test_an_unusable_value_makes_that_file_invalid_never_a_crash(
    class_dir: Path, capsys: pytest.CaptureFixture[str], content: bytes | str, reason: str
) -> None:
    me = login_name()
    dropbox = class_dir / "dropbox"
    drop(dropbox, "honest.json", payload(me, "2026-11-30T07:00:00Z", exercises=(3, 4)))
    if content == "last_activity":
        data = payload(me, "2026-11-30T08:00:00Z", checkpoint=(5, 5))
        data["quizzes"][0]["last_activity"] = "0001-01-01T00:00:00+23:59"
        content = encode_submission(data)
    elif content == "wrong types":
        data = payload(me, "2026-11-30T08:00:00Z", checkpoint=(5, 5))
        data["quizzes"][0]["questions"] = "5"
        content = encode_submission(data)
    elif content == "quizzes object":
        content = hostile(me, quizzes={"checkpoint": 5})
    elif content == "deep":
        content = (
            b'{"format": "attn-tui-submission", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        )
    assert isinstance(content, bytes)
    drop(dropbox, "evil.json", content)
    report = build_report(dropbox, QUIZZES)
    assert [(r.name, reason in r.reason) for r in report.rejected] == [("evil.json", True)]
    assert report.students[me].result("exercises") is not None
    for form in ("table", "json"):
        assert main(["class", "report", str(class_dir), "--format", form]) == 0
    out = capsys.readouterr().out
    assert "evil.json" in out
    # CSV: a grades file from a subset says so and fails, unless the teacher allows it
    assert main(["class", "report", str(class_dir), "--format", "csv"]) == 3
    captured = capsys.readouterr()
    assert "1 file(s) not valid" in captured.err and captured.out.startswith("username,")
    assert main(["class", "report", str(class_dir), "--format", "csv", "--allow-partial"]) == 0
    assert "warning" in capsys.readouterr().err


@needs_root
def test_a_flood_of_one_student_hides_no_one_elses_grades(
    class_dir: Path, accounts: None, capsys: pytest.CaptureFixture[str]
) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    for number in range(21):
        drop(dropbox, f"mine-{number}.json", payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 3)))
    bob = pwd.getpwnam(STUDENTS[1]).pw_uid
    for number in range(MAX_FILES_PER_OWNER + 500):  # 150,000 in the issue: same rule
        path = dropbox / f"junk-{number:06d}"
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        os.chown(path, bob, -1)
    report = build_report(dropbox, QUIZZES)
    assert report.students[me].submissions == 21  # every one of the honest student's files
    assert report.skipped == {STUDENTS[1]: 500}
    assert len(report.rejected) + report.unlisted == MAX_FILES_PER_OWNER  # read, and invalid
    assert len(report_table(report).splitlines()) < 260  # the listing is capped
    data = report_json(report)
    assert data["skipped"] == {STUDENTS[1]: 500} and data["partial"]
    assert main(["class", "report", str(class_dir), "--format", "csv"]) == 3
    err = capsys.readouterr().err
    assert f"500 file(s) of {STUDENTS[1]} not read" in err


def test_hard_links_to_one_big_file_are_read_once(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    data = payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 3))
    data["padding"] = "x" * (508 * 1024)
    original = drop(dropbox, "big.json", data)
    for number in range(1999):
        os.link(original, dropbox / f"link-{number}.json")
    report = build_report(dropbox, QUIZZES)
    assert report.hard_links == 1999
    assert report.students[me].submissions == 1 and not report.partial()


def test_unknown_quiz_ids_are_capped_in_what_is_kept_and_printed(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    for number in range(10):
        data = payload(me, "2026-11-30T08:00:00Z", checkpoint=(1, 1))
        template = data["quizzes"][0]
        data["quizzes"] += [{**template, "id": f"fake-{number}-{index}"} for index in range(999)]
        drop(dropbox, f"many-{number}.json", data)
    report = build_report(dropbox, QUIZZES)
    assert len(report.unknown_quizzes) == MAX_UNKNOWN_QUIZZES
    assert report.unknown_more == 10 * 999 - MAX_UNKNOWN_QUIZZES
    assert set(report.students[me].quizzes) == {"checkpoint"}  # nothing unknown kept per row
    assert len(report_table(report)) < 10_000
    assert len(json.dumps(report_json(report))) < 10_000


def test_rows_are_in_natural_order_and_absent_members_are_blank(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    me = login_name()
    drop(dropbox, "a.json", payload(me, "2026-11-30T08:00:00Z", checkpoint=(2, 3)))
    report = build_report(dropbox, QUIZZES, members=["c10", "c2", "c1", me])
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    names = [row["username"] for row in rows]
    assert names[:3] == ["c1", "c2", "c10"] and me in names
    blank = rows[0]
    assert blank["checkpoint first_try"] == "" and blank["lessons_read"] == ""
    assert blank["late"] == ""
    assert [line.split()[0] for line in report_table(report).splitlines()[1:4]] == [
        "c1",
        "c2",
        "c10",
    ]


@needs_root
def test_every_member_of_the_students_group_gets_a_row(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert set(STUDENTS) <= set(group_members(PUPILS))
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    assert main(["class", "report", str(class_dir), "--format", "csv"]) == 0
    names = [row["username"] for row in csv.DictReader(io.StringIO(capsys.readouterr().out))]
    assert names == list(STUDENTS)  # nobody submitted; everybody is listed


@needs_root
def test_the_teacher_cleans_the_drop_box_after_a_root_run_init(shared: Path) -> None:
    """Issue 18: after `class init` run as root the teacher could not delete a hostile
    file ("Operation not permitted"). With --owner the teacher owns the sticky drop-box."""
    from tui_course.classroom.submission import deliver

    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    dropbox = class_dir / "dropbox"
    ann, bob = STUDENTS

    def send(user: str, *versions: tuple[int, int]) -> list[str]:
        """Each version arrives after the last by the file clock: the drop-box orders by
        ctime, which ticks coarsely, and two files in one tick have no order at all."""
        sent = []
        for first, mastered in versions:
            data = payload(user, "2026-11-30T08:00:00Z", checkpoint=(first, mastered))
            path = deliver(dropbox, encode_submission(data), user)
            sent.append(path.name)
            arrived = path.stat().st_ctime_ns
            probe = dropbox / f".tick-{user}"
            while True:  # until the file clock has moved on (a condition, not a sleep)
                probe.write_bytes(b"")
                moved = probe.stat().st_ctime_ns > arrived
                probe.unlink()
                if moved:
                    break
        return sent

    ann_files = as_user(ann, lambda: send(ann, (1, 2), (4, 5), (3, 5)))
    bob_files = as_user(bob, lambda: send(bob, (2, 2)))

    def plant() -> None:
        (dropbox / "evil.json").write_bytes(b'{"n": ' + b"9" * 5001 + b"}")
        os.mkfifo(dropbox / "fifo")

    as_user(bob, plant)
    before = report_csv(build_report(dropbox, QUIZZES))

    def clean(*flags: str) -> int:
        return main(["class", "clean", str(class_dir), *flags])

    assert as_user(TEACHER, lambda: clean("--dry-run"), groups=(TEACHERS,)) == 0
    assert len(os.listdir(dropbox)) == 6
    assert as_user(TEACHER, clean, groups=(TEACHERS,)) == 0
    left = set(os.listdir(dropbox))
    # ann's first file holds her first-try score, her last the latest numbers
    assert left == {ann_files[0], ann_files[2], bob_files[0]}
    after = build_report(dropbox, QUIZZES)
    assert report_csv(after) == before and not after.partial()  # the same grades, no junk


@needs_root
def test_without_an_owner_a_teacher_cannot_clean_and_is_told_why(shared: Path) -> None:
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention")  # root-owned, as before the fix
    dropbox = class_dir / "dropbox"
    as_user(STUDENTS[0], lambda: (dropbox / "junk").write_bytes(b"x") and None)

    def clean() -> list[object]:
        import contextlib
        import sys

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(["class", "clean", str(class_dir)])
        sys.stderr.flush()
        return [code, err.getvalue()]

    code, err = as_user(TEACHER, clean, groups=(TEACHERS,))
    assert code == 1 and "only its owner or root" in str(err)
    assert os.listdir(dropbox) == ["junk"]
    archive = class_dir.parent / "archive"
    assert main(["class", "clean", str(class_dir), "--archive", str(archive)]) == 0  # root
    assert os.listdir(dropbox) == [] and os.listdir(archive) == ["junk"]


def test_class_report_csv_is_spreadsheet_safe(class_dir: Path) -> None:
    """Every cell goes through the one CSV writer: a name a spreadsheet would run as a
    formula (here a group member's, the one text not checked by a pattern) is quoted
    and prefixed."""
    report = build_report(class_dir / "dropbox", QUIZZES, members=["=HYPERLINK(1)", "+x", "ok"])
    text = report_csv(report)
    assert '\n"\'=HYPERLINK(1)",' in text and '\n"\'+x",' in text
    names = [row["username"] for row in csv.DictReader(io.StringIO(text))]
    assert sorted(names) == ["'+x", "'=HYPERLINK(1)", "ok"]


def owned(path: Path, user: str, data: bytes | dict[str, object]) -> Path:
    """A drop-box file as `user` made it (root writes it and gives it away)."""
    drop(path.parent, path.name, data)  # type: ignore[arg-type]
    os.chown(path, pwd.getpwnam(user).pw_uid, -1)
    return path


@needs_root
def test_junk_and_a_huge_file_hide_no_forgery_and_no_impossible_score(
    shared: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: 2,500 junk files and a 100 MB file from one student pushed the forgery
    section out of the report ("1803 more problem file(s)"). Forgeries and impossible
    scores come first and are never cut; junk is one line per owner; the huge file is
    never read."""
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    dropbox = class_dir / "dropbox"
    ann, bob = STUDENTS
    bob_uid = pwd.getpwnam(bob).pw_uid
    for number in range(2_500):
        path = dropbox / f"junk-{number:05d}"
        path.write_bytes(b"x" * 10)
        os.chown(path, bob_uid, -1)
    huge = dropbox / "huge.bin"
    with huge.open("wb") as handle:
        handle.truncate(100_000_000)  # sparse: 100 MB to a reader, no disk
    os.chown(huge, bob_uid, -1)
    owned(dropbox / "ann.json", ann, payload(ann, "2026-11-30T08:00:00Z", checkpoint=(4, 5)))
    owned(dropbox / "as-bob.json", ann, payload(bob, "2026-11-30T08:00:00Z", checkpoint=(5, 5)))
    owned(dropbox / "bob-10.json", bob, payload(bob, "2026-11-30T08:00:00Z", checkpoint=(9, 5)))
    read: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    assert main(["class", "report", str(class_dir)]) == 0
    monkeypatch.setattr(os, "read", real_read)
    out = capsys.readouterr().out
    assert sum(read) < 1_000_000  # the 100 MB file was refused by its size, never read
    lines = out.splitlines()
    assert len(lines) < 30, out
    assert lines[0].endswith(": 2 student(s), attn-tui class report")
    assert [line.split()[:2] for line in lines[2:4]] == [[ann, "4/5"], [bob, "-"]]
    forged = lines.index("Files whose owner is not the student they name (left out):")
    impossible = lines.index("Files with impossible scores (left out):")
    junk = lines.index("Files that are not valid submissions (left out):")
    assert forged < impossible < junk  # first, before any junk
    assert lines[forged + 1] == f"  as-bob.json: names '{bob}' but belongs to '{ann}'"
    assert lines[impossible + 1] == f"  bob-10.json ({bob}): quiz checkpoint: score too high"
    # bob's newest 2,000 files are read: the big one, the impossible score and 1,998 junk
    assert lines[junk + 1] == f"  {bob}: 1,999 files that are not submissions, 100 MB"
    assert f"Not read: 502 file(s) of {bob}" in out
    data = json.loads(_json_report(class_dir, capsys))
    assert data["not_submissions"] == {bob: {"files": 1999, "bytes": 100_000_000 + 19_980}}
    assert [entry["file"] for entry in data["owner_mismatches"]] == ["as-bob.json"]
    assert [entry["owner"] for entry in data["impossible_scores"]] == [bob]


@needs_root
def test_a_flood_listed_first_hides_no_forgery_and_no_other_students_file(
    shared: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 2 of the red team: a million empty files from one student, listed before the
    rest, pushed a forgery and another student's submission past a cap on the entries
    looked at (the report's 200,000, recheck's 10,000). Every entry is looked at now; the
    caps are per owner. The listing order is forced here, with the old caps made small, so
    the test fails on the code that had them."""
    from tui_course.classroom import recheck, report

    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    dropbox = class_dir / "dropbox"
    ann, bob = STUDENTS
    bob_uid = pwd.getpwnam(bob).pw_uid
    for number in range(3_000):
        path = dropbox / f"junk-{number:05d}"
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        os.chown(path, bob_uid, -1)
    owned(dropbox / "ann.json", ann, payload(ann, "2026-11-30T08:00:00Z", checkpoint=(4, 5)))
    owned(dropbox / "as-ann.json", bob, payload(ann, "2026-11-30T08:00:00Z", checkpoint=(5, 5)))
    monkeypatch.setattr(report, "MAX_FILES", 1_000, raising=False)
    monkeypatch.setattr(recheck, "MAX_FILES", 1_000, raising=False)
    real_scandir = os.scandir

    class JunkFirst:
        def __init__(self, path: object) -> None:
            self.listing = real_scandir(path)  # type: ignore[call-overload]
            entries = list(self.listing)
            self.entries = sorted(entries, key=lambda entry: not entry.name.startswith("junk"))

        def __enter__(self) -> list[os.DirEntry[str]]:
            return self.entries

        def __exit__(self, *exc: object) -> None:
            self.listing.close()

    monkeypatch.setattr(os, "scandir", JunkFirst)
    built = build_report(dropbox, QUIZZES)
    assert built.students[ann].submissions == 1
    assert [entry.name for entry in built.impostors] == ["as-ann.json"]
    latest, refused = recheck.latest_submissions(dropbox)
    assert set(latest) == {ann}
    assert f"as-ann.json: names '{ann}' but belongs to {bob}" in refused
    monkeypatch.setattr(os, "scandir", real_scandir)
    assert main(["class", "report", str(class_dir)]) == 0
    out = capsys.readouterr().out
    assert "Files whose owner is not the student they name (left out):" in out
    assert f"  {bob}: 1,999 files that are not submissions, 0 B" in out  # and the forgery
    assert f"Not read: 1001 file(s) of {bob}" in out


def _json_report(class_dir: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["class", "report", str(class_dir), "--format", "json"]) == 0
    return capsys.readouterr().out


@needs_root
def test_accounts_outside_the_students_group_are_not_students(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: the site config is machine-wide, so root's own try of the app went into
    the class: a `root` row, "31 students" for a group of 30."""
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    dropbox = class_dir / "dropbox"
    ann = STUDENTS[0]
    owned(dropbox / "ann.json", ann, payload(ann, "2026-11-30T08:00:00Z", checkpoint=(4, 5)))
    drop(dropbox, "root.json", payload("root", "2026-11-30T08:00:00Z", checkpoint=(5, 5)))
    for number in range(2):
        data = payload(TEACHER, "2026-11-30T08:00:00Z", checkpoint=(5, 5))
        owned(dropbox / f"tina-{number}.json", TEACHER, data)
    assert main(["class", "report", str(class_dir)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(": 2 student(s), attn-tui class report")
    assert "\nroot " not in out and f"\n{TEACHER} " not in out
    assert "Submissions of accounts outside the students' group (left out):" in out
    assert "  root: 1 file\n" in out and f"  {TEACHER}: 2 files" in out
    assert main(["class", "report", str(class_dir), "--format", "csv"]) == 0  # not partial
    names = [row["username"] for row in csv.DictReader(io.StringIO(capsys.readouterr().out))]
    assert names == list(STUDENTS)


@needs_root
def test_hidden_part_names_hide_no_forgery_nor_junk_for_ever(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A student names files `.part-<16 hex>`, as the app's submissions on their way, and
    keeps their ctime new (touch in a loop): report, recheck and clean passed over them for
    ever. A whole forgery or impossible score is never on its way (the app writes neither)
    and is shown; junk passes only up to the few files one app can be writing at once, and
    never past a submission's size."""
    from tui_course.classroom.clean import clean_dropbox
    from tui_course.classroom.recheck import latest_submissions
    from tui_course.classroom.report import MAX_IN_TRANSIT

    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Attention", owner=TEACHER, students_group=PUPILS)
    dropbox = class_dir / "dropbox"
    ann, bob = STUDENTS
    owned(dropbox / "bob.json", bob, payload(bob, "2026-11-30T08:00:00Z", checkpoint=(2, 5)))
    forged = payload(bob, "2026-11-30T08:00:00Z", checkpoint=(5, 5))
    for number in range(3):
        owned(dropbox / f".part-{number:016x}", ann, forged)
    impossible = payload(ann, "2026-11-30T08:00:00Z", checkpoint=(9, 5))
    owned(dropbox / ".part-00000000000000aa", ann, impossible)
    for number in range(8):
        owned(dropbox / f".part-{0x100 + number:016x}", ann, b"x" * 100)
    big = owned(dropbox / ".part-00000000000000ff", ann, b"x" * 600_000)
    report = build_report(dropbox, QUIZZES, members=STUDENTS, only_members=True)
    assert len(report.impostors) == 3
    assert all(rejected.named == bob and rejected.owner == ann for rejected in report.impostors)
    assert [rejected.name for rejected in report.impossible] == [".part-00000000000000aa"]
    junk = report.junk[ann]  # a few young junk files pass (the first looked at)
    assert 1 + 8 - MAX_IN_TRANSIT <= junk.files <= 1 + 8
    assert junk.bytes == big.stat().st_size + (junk.files - 1) * 100
    assert report.students[bob].result("checkpoint").first_try == 2  # type: ignore[union-attr]
    print(report_table(report))
    assert "Files whose owner is not the student they name" in capsys.readouterr().out
    _, refused = latest_submissions(dropbox, STUDENTS)
    assert sum(f"names '{bob}' but belongs to {ann}" in line for line in refused) == 3
    removed = set(clean_dropbox(dropbox).removed)
    assert {".part-0000000000000000", ".part-00000000000000aa", big.name} <= removed
    assert len(os.listdir(dropbox)) <= 1 + MAX_IN_TRANSIT  # bob's, and young junk
