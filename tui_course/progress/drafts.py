"""A student's code drafts, one file per code question in the data folder.

A draft is written whole to a new temp file (O_EXCL, 0600, never through a link) in the
same folder, flushed, then renamed over the old one: a kill -9 or a dropped SSH
connection leaves the old draft or the new one, never half of either. A link planted
where a draft should be is replaced, not followed (rename acts on the name itself).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from pathlib import Path

from tui_course.paths import LinkRefused, create_private_file, ensure_private_dir

DRAFTS_FOLDER = "code"  # data folder/code/QUIZ-N.py: `attn-tui check ID` reads it too
MAX_DRAFT_BYTES = 64 * 1024  # three times the 20 KB an attempt keeps; far above an exercise
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class DraftTooLarge(ValueError):
    """The draft is over MAX_DRAFT_BYTES: it is not saved (the editor refuses it first)."""


def draft_name(quiz_id: str, number: int) -> str:
    """The file name of one question's draft: `code-1.py` for question 1 of quiz `code`."""
    return f"{_UNSAFE.sub('_', quiz_id)}-{number}.py"


def drafts_dir(data_dir: Path) -> Path:
    return data_dir / DRAFTS_FOLDER


def draft_path(data_dir: Path, quiz_id: str, number: int) -> Path:
    return drafts_dir(data_dir) / draft_name(quiz_id, number)


def write_draft(data_dir: Path, quiz_id: str, number: int, text: str) -> Path:
    """Save the draft atomically; raises OSError (LinkRefused for a linked folder)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_DRAFT_BYTES:
        raise DraftTooLarge(f"a draft is at most {MAX_DRAFT_BYTES // 1024} KB")
    ensure_private_dir(data_dir)
    folder = ensure_private_dir(drafts_dir(data_dir))
    target = folder / draft_name(quiz_id, number)
    temp = folder / f".{target.name}.{secrets.token_hex(6)}.tmp"
    fd = create_private_file(temp)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        _remove_quietly(temp)
        raise
    _sync_folder(folder)
    return target


def read_draft(data_dir: Path, quiz_id: str, number: int) -> str | None:
    """The saved draft, or None when there is none (or it is not a plain file of ours)."""
    path = draft_path(data_dir, quiz_id, number)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            message = "is a symbolic link; attn-tui does not follow links"
            raise LinkRefused(errno.ELOOP, message, path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device: never block on it
            return None
        data = os.read(fd, MAX_DRAFT_BYTES + 1)
    finally:
        os.close(fd)
    return data[:MAX_DRAFT_BYTES].decode("utf-8", "replace")


def remove_draft(data_dir: Path, quiz_id: str, number: int) -> None:
    _remove_quietly(draft_path(data_dir, quiz_id, number))


def _remove_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (the new name survives a power cut)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some network file systems refuse fsync on a folder
        pass
    finally:
        os.close(fd)
