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
import shlex
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from tui_course.classroom.report import (
    InTransit,
    arrival_time,
    natural_key,
    owner_name,
    read_capped,
    shown_name,
)
from tui_course.classroom.submission import (
    MAX_SUBMISSION_BYTES,
    SubmissionError,
    parse_submission,
)


class ArchiveRefused(OSError):
    """An --archive folder that others could change: clean moves students' files there."""


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
    in_transit = InTransit(dropbox)
    with os.scandir(dropbox) as entries:
        for entry in entries:
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                data, info = read_capped(dropbox, entry.name)
                if in_transit.passes_over(entry.name, info):
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


def _being_written(path: Path, in_transit: InTransit) -> bool:
    try:
        return in_transit.passes_over(path.name, os.lstat(path))
    except OSError:
        return False


def _check_archive(archive: Path) -> None:
    """The archive folder must be this account's own real folder that no one else may
    write: in a folder another account owns or may write (a name in /tmp a student made
    first, a link to one), that account could rename, remove or read what clean moves in."""
    info = os.lstat(archive)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise ArchiveRefused(f"{archive}: the archive is not a folder (a link or a file)")
    if info.st_uid != os.geteuid():
        raise ArchiveRefused(
            f"{archive}: the archive folder belongs to {owner_name(info.st_uid)}, not to you;"
            " give a new folder of your own"
        )
    if info.st_mode & 0o022:
        raise ArchiveRefused(
            f"{archive}: others may write in the archive folder;"
            f" fix: chmod go-w {shlex.quote(str(archive))}"
        )


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
            info = os.fstat(source)
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_SUBMISSION_BYTES:
                # a sparse terabyte costs its student no quota, and a copy fills the disk
                raise ArchiveRefused(
                    f"larger than any submission ({info.st_size:,} bytes): not copied to"
                    " another file system; left in place (`class clean` without --archive"
                    " removes it)"
                )
            if stat.S_ISREG(info.st_mode):
                out_flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                destination = os.open(target, out_flags, 0o600)
                try:
                    _copy_capped(source, destination)
                except OSError:
                    os.close(destination)
                    with contextlib.suppress(OSError):
                        os.unlink(target)
                    raise
                os.close(destination)
        finally:
            os.close(source)
    if stat.S_ISDIR(os.lstat(path).st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _copy_capped(source: int, destination: int) -> None:
    """Copy up to MAX_SUBMISSION_BYTES; a file that grows past it while read is refused."""
    left = MAX_SUBMISSION_BYTES + 1
    while left > 0 and (chunk := os.read(source, min(left, 1 << 20))):
        left -= len(chunk)
        if left <= 0:
            raise ArchiveRefused("grew past the size of any submission while copied: left in place")
        view = memoryview(chunk)
        while view:
            view = view[os.write(destination, view) :]
    os.fsync(destination)


def _free_name(folder: Path, name: str) -> Path:
    target = folder / name
    number = 1
    while os.path.lexists(target):
        target = folder / f"{name}.{number}"
        number += 1
    return target


def clean_dropbox(dropbox: Path, archive: Path | None = None, dry_run: bool = False) -> CleanResult:
    """Remove (or move to `archive`) every drop-box entry the report does not use.
    Raises ArchiveRefused for an archive folder others could change, otherwise OSError
    only when the drop-box cannot be listed."""
    keep = files_in_use(dropbox)
    result = CleanResult()
    if archive is not None and not dry_run:
        archive.mkdir(mode=0o700, parents=True, exist_ok=True)
        _check_archive(archive)
    in_transit = InTransit(dropbox)
    with os.scandir(dropbox) as entries:
        names = sorted((entry.name for entry in entries), key=natural_key)
    for name in names:
        shown = shown_name(name)
        if _being_written(dropbox / name, in_transit):
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
