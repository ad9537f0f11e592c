"""`class init` makes the folder with the right modes; a wrong mode is refused with its fix."""

from __future__ import annotations

import grp
import os
import stat
from pathlib import Path

import pytest

from tests.classroom.conftest import own_group
from tui_course.classroom.config import load_class_config
from tui_course.classroom.folder import ClassFolderError, check_folder, init_class


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_init_makes_the_folder(class_dir: Path) -> None:
    assert mode(class_dir / "dropbox") == 0o3773
    assert mode(class_dir / "queue") == 0o1777
    assert mode(class_dir / "class.toml") == 0o664  # the teachers edit deadlines
    # the slots/slot-N files older versions made held nothing (issue 29): not made
    assert sorted(p.name for p in class_dir.iterdir()) == ["class.toml", "dropbox", "queue"]
    assert (class_dir / "dropbox").stat().st_gid == grp.getgrnam(own_group()).gr_gid
    config = load_class_config(class_dir)
    assert (config.course, config.training_slots, dict(config.deadlines)) == (
        "Attention 101",
        2,
        {},
    )
    assert check_folder(class_dir) == []


def test_init_again_repairs_modes_and_changes_slots(class_dir: Path) -> None:
    (class_dir / "dropbox").chmod(0o777)
    init_class(class_dir, own_group(), 3, "ignored: class.toml is kept")
    assert mode(class_dir / "dropbox") == 0o3773
    assert load_class_config(class_dir).training_slots == 3
    assert load_class_config(class_dir).course == "Attention 101"
    init_class(class_dir, own_group(), 1, "x")
    assert load_class_config(class_dir).training_slots == 1


def test_init_removes_the_slot_files_older_versions_made(class_dir: Path) -> None:
    old = class_dir / "slots"
    old.mkdir()
    for number in (1, 2):
        (old / f"slot-{number}").touch(mode=0o444)
    done = init_class(class_dir, own_group(), 2, "x")
    assert not old.exists() and f"removed {old} (no longer used)" in done
    assert check_folder(class_dir) == []


@pytest.mark.parametrize(
    ("part", "bad", "says"),
    [
        ("dropbox", 0o2777, "lets students list the submissions"),
        ("dropbox", 0o1773, "lacks setgid"),
        ("dropbox", 0o3733, "the teachers' group cannot list it"),
        ("dropbox", 0o2773, "lacks the sticky bit"),
        ("dropbox", 0o3770, "students cannot put files in it"),
        ("queue", 0o777, "lacks the sticky bit"),
        ("queue", 0o1770, "students cannot wait in line"),
    ],
)
def test_wrong_modes_are_refused_with_the_fix(
    class_dir: Path, part: str, bad: int, says: str
) -> None:
    (class_dir / part).chmod(bad)
    problems = check_folder(class_dir)
    assert len(problems) == 1
    assert says in problems[0].problem
    right = {"dropbox": "3773", "queue": "1777"}[part]
    assert str(problems[0]).endswith(f"fix: chmod {right} {class_dir / part}")


def test_missing_parts_point_to_class_init(tmp_path: Path) -> None:
    (tmp_path / "half").mkdir()
    problems = check_folder(tmp_path / "half")
    assert [p.path.name for p in problems] == ["dropbox", "queue"]
    assert all("attn-tui class init" in p.fix for p in problems)
    assert "cannot open" in str(check_folder(tmp_path / "nowhere")[0])


def test_unknown_group_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ClassFolderError, match="no group named 'no-such-group-x'"):
        init_class(tmp_path / "c", "no-such-group-x", 1, "c")
    with pytest.raises(ClassFolderError, match="--training-slots must be from 1"):
        init_class(tmp_path / "c", own_group(), 0, "c")


def test_symlinked_dropbox_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "c" / "dropbox")
    with pytest.raises(ClassFolderError, match="is a symbolic link"):
        init_class(tmp_path / "c", own_group(), 1, "c")
    assert any(p.problem == "is not a folder" for p in check_folder(tmp_path / "c"))


def test_class_init_command_prints_the_site_config_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pwd

    from tui_course.cli import main

    target = tmp_path / "lab class"
    me = pwd.getpwuid(os.geteuid()).pw_name
    command = ["class", "init", str(target), "--group", own_group(), "--owner", me]
    assert main([*command, "--training-slots", "3"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f'class_dir = "{target}"')
    assert load_class_config(target).training_slots == 3
    assert main(["class", "init", str(target), "--group", "no-such-group-x", "--owner", me]) == 2
    assert capsys.readouterr().err.startswith("attn-tui: class init: --group: no group named")


@pytest.mark.skipif(os.geteuid() != 0, reason="the --owner rule is for root")
def test_root_must_name_the_owner_who_can_clean_the_drop_box(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_course.cli import main

    monkeypatch.delenv("SUDO_USER", raising=False)
    assert main(["class", "init", str(tmp_path / "c"), "--group", own_group()]) == 2
    assert "--owner: as root, name the teacher" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_root_refused_by_the_file_server_is_told_about_root_squash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # NFS's root_squash: root on a login server is nobody on the class folder, so its
    # chown comes back EPERM. "run ... as root" would send the admin in a circle.
    def squashed(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted", str(tmp_path / "class"))

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(os, "chown", squashed)
    with pytest.raises(ClassFolderError) as refused:
        init_class(tmp_path / "class", own_group(), 2, "Attention 101")
    assert str(refused.value) == (
        f"{tmp_path / 'class'}: permission denied to root: the folder is likely on NFS with"
        " root_squash, where root is nobody; run class init on the file server, or on a"
        " client the server exports to with no_root_squash while you set up"
    )
