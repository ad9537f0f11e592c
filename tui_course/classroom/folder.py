"""The class folder: made by `attn-tui class init`, checked before anyone relies on it.

CLASS/            0755  the teacher's (--owner); class.toml 0664, the teachers' group
  dropbox/        3773  group = the teachers' group, which lists and reads it.
                        Students (others) may create files (write + search) but
                        not list the folder or read a file; setgid gives every
                        file the teachers' group; sticky keeps a student from
                        deleting or renaming another's file.
  queue/          1777  waiting and running training runs hold a file here with flock,
                        named for their server: each login server sharing the folder
                        keeps its own line (sticky; see classroom.slots)

Older versions also made slots/slot-1..N, which nothing uses any more (anyone who can
read a file can flock it); `class init` removes them.
"""

from __future__ import annotations

import contextlib
import grp
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tui_course.classroom.config import CLASS_FILE, MAX_SLOTS

DROPBOX = "dropbox"
SLOTS = "slots"  # no longer made; removed by `class init`
QUEUE = "queue"
DROPBOX_MODE = 0o3773
QUEUE_MODE = 0o1777


class ClassFolderError(Exception):
    """A class folder that cannot be made or used; the message ends with the fixing command."""


@dataclass(frozen=True)
class FolderProblem:
    path: Path
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}; fix: {self.fix}"


def _quote(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def class_toml(course: str, slots: int, students_group: str | None = None) -> str:
    import json

    group_line = (
        f"students_group = {json.dumps(students_group)}\n"
        if students_group
        else '# students_group = "attn-students"   # every member gets a row in the report\n'
    )
    return (
        "# The class folder's settings, read by attn-tui (students read it too).\n"
        f"course = {json.dumps(course)}\n"
        f"training_slots = {slots}\n"
        + group_line
        + "# runs_per_user = 1        # training runs one student may have at once\n"
        "# max_run_minutes = 30     # a run holding a slot longer is stopped\n"
        "\n"
        "# Optional: a deadline per quiz id; `attn-tui class report` marks later submissions.\n"
        "[deadlines]\n"
        "# exercises = 2026-12-15T23:59:00Z\n"
    )


CLASS_TOML_MODE = 0o664  # the teachers' group edits deadlines without root


def init_class(
    directory: Path,
    group: str,
    slots: int,
    course: str,
    owner: str | None = None,
    students_group: str | None = None,
) -> list[str]:
    """Make (or repair) the class folder; returns what was done, one line each.

    `owner` (a teacher) owns the folder and the drop-box: the drop-box is sticky, so
    only its owner (or root) can remove students' files with `class clean`.
    Raises ClassFolderError for an unknown group or user, or a folder this user
    cannot set up."""
    import pwd

    from tui_course.paths import write_file_safely

    if not 1 <= slots <= MAX_SLOTS:
        raise ClassFolderError(f"--training-slots must be from 1 to {MAX_SLOTS}")
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        raise ClassFolderError(
            f"--group: no group named '{group}'; make it with: groupadd {group}"
        ) from None
    uid = -1
    if owner is not None:
        try:
            uid = pwd.getpwnam(owner).pw_uid
        except KeyError:
            raise ClassFolderError(
                f"--owner: no user named '{owner}'; make the teacher's account first"
                f" (useradd -m {owner})"
            ) from None
    if students_group is not None:
        try:
            grp.getgrnam(students_group)
        except KeyError:
            raise ClassFolderError(
                f"--students-group: no group named '{students_group}';"
                f" make it with: groupadd {students_group}"
            ) from None
    done: list[str] = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if directory.is_symlink():
            raise ClassFolderError(f"{directory}: is a symbolic link; name the real folder")
        os.chown(directory, uid, gid, follow_symlinks=False)
        directory.chmod(0o755)
        toml = directory / CLASS_FILE
        if toml.is_symlink() or (toml.exists() and not toml.is_file()):
            raise ClassFolderError(f"{toml}: is not a plain file; remove it and run again")
        if not toml.exists():
            text = class_toml(course, slots, students_group)
            write_file_safely(toml, text.encode("utf-8"), CLASS_TOML_MODE)
            done.append(f"wrote {toml}")
        else:
            _set_in_toml(toml, "training_slots", str(slots))
            if students_group is not None:
                import json

                _set_in_toml(toml, "students_group", json.dumps(students_group))
            done.append(f"kept {toml} (training_slots = {slots})")
        os.chown(toml, uid, gid, follow_symlinks=False)
        toml.chmod(CLASS_TOML_MODE)
        for name, mode in ((DROPBOX, DROPBOX_MODE), (QUEUE, QUEUE_MODE)):
            sub = directory / name
            if sub.is_symlink():
                raise ClassFolderError(f"{sub}: is a symbolic link; remove it and run again")
            sub.mkdir(exist_ok=True)
            os.chown(sub, uid, gid, follow_symlinks=False)
            sub.chmod(mode)
            done.append(f"{sub} mode {mode:04o} group {group}")
        old_slots = directory / SLOTS
        if old_slots.is_dir() and not old_slots.is_symlink():
            for old in old_slots.glob("slot-*"):
                old.unlink()
            with contextlib.suppress(OSError):  # not empty: something else is kept there
                old_slots.rmdir()
                done.append(f"removed {old_slots} (no longer used)")
        done.append(f"{slots} training slot(s): runs wait and run in {directory / QUEUE}")
        if owner is not None:
            done.append(f"owner {owner}: may edit class.toml and clean the drop-box")
    except PermissionError as error:
        where = error.filename or directory
        if os.geteuid() == 0:  # root refused: a network file system that maps root to nobody
            raise ClassFolderError(
                f"{where}: permission denied to root: the folder is likely on NFS with"
                " root_squash, where root is nobody; run class init on the file server, or"
                " on a client the server exports to with no_root_squash while you set up"
            ) from None
        raise ClassFolderError(
            f"{where}: permission denied; run as a member of '{group}'"
            " who owns the folder, or as root"
        ) from None
    except OSError as error:
        raise ClassFolderError(
            f"{error.filename or directory}: {error.strerror or error}"
        ) from None
    return done


def _set_in_toml(toml: Path, key: str, value: str) -> None:
    import re

    from tui_course.paths import write_file_safely

    text = toml.read_text(encoding="utf-8")
    updated, count = re.subn(rf"(?m)^#? ?{key}\s*=.*$", f"{key} = {value}", text, count=1)
    if not count:
        updated = f"{key} = {value}\n" + text
    if updated != text:
        write_file_safely(toml, updated.encode("utf-8"), CLASS_TOML_MODE)


def site_config_lines(directory: Path) -> str:
    import json

    return f"class_dir = {json.dumps(str(directory))}"


def check_folder(directory: Path) -> list[FolderProblem]:
    """What is wrong with a class folder, each with the command that fixes it."""
    problems: list[FolderProblem] = []
    try:
        info = directory.lstat()
    except OSError as error:
        return [
            FolderProblem(
                directory,
                f"cannot open: {error.strerror or error}",
                f"attn-tui class init {_quote(directory)} --group GROUP",
            )
        ]
    if not stat.S_ISDIR(info.st_mode):
        return [
            FolderProblem(
                directory,
                "is not a folder",
                f"attn-tui class init {_quote(directory)} --group GROUP",
            )
        ]
    if info.st_mode & 0o002:
        problems.append(
            FolderProblem(
                directory, "anyone may rename its parts", f"chmod o-w {_quote(directory)}"
            )
        )
    checks = (
        (DROPBOX, DROPBOX_MODE, dropbox_problem),
        (QUEUE, QUEUE_MODE, _queue_problem),
    )
    for name, mode, judge in checks:
        sub = directory / name
        try:
            sub_info = sub.lstat()
        except OSError:
            problems.append(
                FolderProblem(
                    sub, "is missing", f"attn-tui class init {_quote(directory)} --group GROUP"
                )
            )
            continue
        if not stat.S_ISDIR(sub_info.st_mode):
            problems.append(FolderProblem(sub, "is not a folder", f"rm {_quote(sub)}"))
            continue
        problem = judge(stat.S_IMODE(sub_info.st_mode))
        if problem:
            problems.append(FolderProblem(sub, problem, f"chmod {mode:04o} {_quote(sub)}"))
    return problems


def dropbox_problem(mode: int) -> str | None:
    """What a drop-box with these permission bits gets wrong (students listing or deleting
    others' work, students unable to hand in, teachers unable to read), or None. The folder
    checks (`attn-tui doctor`, `class report`) and a student's submission share this rule."""
    if mode & 0o004:
        return f"mode {mode:04o} lets students list the submissions"
    if mode & 0o050 != 0o050:
        return f"mode {mode:04o}: the teachers' group cannot list it"
    if mode & 0o003 != 0o003:
        return f"mode {mode:04o}: students cannot put files in it"
    if not mode & stat.S_ISGID:
        return f"mode {mode:04o}: lacks setgid, so the teacher's group cannot read new files"
    if not mode & stat.S_ISVTX:
        return f"mode {mode:04o}: lacks the sticky bit, so students could delete others' files"
    return None


def _queue_problem(mode: int) -> str | None:
    if mode & 0o007 != 0o007:
        return f"mode {mode:04o}: students cannot wait in line"
    if not mode & stat.S_ISVTX:
        return f"mode {mode:04o}: lacks the sticky bit, so students could remove others' tickets"
    return None


def class_summary_lines(directory: Path) -> list[str]:
    """For `class init`: what to add to the site config."""
    return [
        "Add this line to /etc/attn-tui/config.toml (or the file named by $ATTN_TUI_CONFIG):",
        "",
        f"    {site_config_lines(directory)}",
    ]
