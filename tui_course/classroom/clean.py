"""`attn-tui class clean`: empty the drop-box of what the report does not use.

For each student the files the report's numbers come from are kept: the latest valid
submission, and the earlier ones that still supply a number (the first-try score
comes from the earliest finished first pass, a quiz's latest state from the last file
that mentions it). Everything else (older submissions, junk, impostors' files, FIFOs,
links, folders) is removed, or moved into an archive folder. The drop-box is sticky,
so only its owner (the teacher `class init --owner` named) or root may do this.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from tui_course.classroom.report import (
    arrival_time,
    being_written,
    natural_key,
    owner_name,
    read_capped,
    shown_name,
)
from tui_course.classroom.submission import SubmissionError, parse_submission


@dataclass
class CleanResult:
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class _Sources:
    """Per student: which file supplies which number of the report."""

    latest: tuple[int, str] | None = None
    quiz_latest: dict[str, tuple[int, str]] = field(default_factory=dict)
    quiz_first: dict[str, tuple[int, str]] = field(default_factory=dict)

    def add(self, name: str, when: int, quizzes: list[tuple[str, bool]]) -> None:
        if self.latest is None or self.latest[0] <= when:
            self.latest = (when, name)
        for quiz_id, graded in quizzes:
            held = self.quiz_latest.get(quiz_id)
            if held is None or held[0] <= when:
                self.quiz_latest[quiz_id] = (when, name)
            first = self.quiz_first.get(quiz_id)
            if graded and (first is None or when < first[0]):
                self.quiz_first[quiz_id] = (when, name)

    def names(self) -> set[str]:
        used = {name for _, name in self.quiz_latest.values()}
        used |= {name for _, name in self.quiz_first.values()}
        if self.latest is not None:
            used.add(self.latest[1])
        return used


def files_in_use(dropbox: Path) -> set[str]:
    """Names (as listed) of the valid submissions the report's numbers come from."""
    students: dict[str, _Sources] = {}
    with os.scandir(dropbox) as entries:
        for entry in entries:
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                data, info = read_capped(dropbox, entry.name)
                if being_written(entry.name, info.st_ctime_ns, time.time_ns()):
                    continue
                submission = parse_submission(data)
                when = info.st_ctime_ns
                arrival_time(info)
            except (OSError, SubmissionError, ValueError, OverflowError, RecursionError):
                continue
            if owner_name(info.st_uid) != submission.user:
                continue
            quizzes = [(quiz.id, quiz.first_try is not None) for quiz in submission.quizzes]
            students.setdefault(submission.user, _Sources()).add(entry.name, when, quizzes)
    used: set[str] = set()
    for sources in students.values():
        used |= sources.names()
    return used


def _being_written(path: Path) -> bool:
    try:
        return being_written(path.name, os.lstat(path).st_ctime_ns, time.time_ns())
    except OSError:
        return False


def _move(path: Path, target: Path) -> None:
    """rename(2), or where the archive is on another file system (an NFS class folder, a
    local home: EXDEV) a copy of a regular file, then the original removed. Anything else
    (a FIFO, a link, a folder) is removed, never opened: a FIFO would block the copy."""
    try:
        os.rename(path, target)
        return
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        source = os.open(path, flags)
    except OSError:
        source = None  # a link (ELOOP) or a folder: not archived
    if source is not None:
        try:
            if stat.S_ISREG(os.fstat(source).st_mode):
                out_flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                destination = os.open(target, out_flags, 0o600)
                try:
                    while chunk := os.read(source, 1 << 20):
                        view = memoryview(chunk)
                        while view:
                            view = view[os.write(destination, view) :]
                    os.fsync(destination)
                finally:
                    os.close(destination)
        finally:
            os.close(source)
    if stat.S_ISDIR(os.lstat(path).st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _free_name(folder: Path, name: str) -> Path:
    target = folder / name
    number = 1
    while os.path.lexists(target):
        target = folder / f"{name}.{number}"
        number += 1
    return target


def clean_dropbox(dropbox: Path, archive: Path | None = None, dry_run: bool = False) -> CleanResult:
    """Remove (or move to `archive`) every drop-box entry the report does not use.
    Raises OSError only when the drop-box cannot be listed."""
    keep = files_in_use(dropbox)
    result = CleanResult()
    if archive is not None and not dry_run:
        archive.mkdir(mode=0o700, parents=True, exist_ok=True)
    with os.scandir(dropbox) as entries:
        names = sorted((entry.name for entry in entries), key=natural_key)
    for name in names:
        shown = shown_name(name)
        if _being_written(dropbox / name):
            continue  # a student's app links it under its final name in a moment
        if name in keep:
            result.kept.append(shown)
            continue
        if dry_run:
            result.removed.append(shown)
            continue
        path = dropbox / name
        try:
            if archive is not None:
                _move(path, _free_name(archive, name))
            elif stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path)  # fd-based: links inside are removed, never followed
            else:
                os.unlink(path)
        except OSError as error:
            result.failed.append((shown, error.strerror or str(error)))
            continue
        result.removed.append(shown)
    with contextlib.suppress(OSError):
        os.sync()
    return result
