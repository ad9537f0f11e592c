"""Progress belongs to the site's course; another content folder is practice.

The course that counts is the one `attn-tui` opens without `--content` (the shipped
course, or the site's ATTN_TUI_CONTENT_DIR). A content folder elsewhere may hold any
answer key and any reference code, so what is answered or checked with it is kept in a
practice store of its own, DATA/practice/<digest of its path>, which nothing sends to
the class drop-box: its passes never count toward progress or a report.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PRACTICE_DIR = "practice"
MARKER = "practice-course.txt"  # names the content folder a practice store belongs to
NOT_SENT = "practice progress is never sent to the class folder"


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def is_site_course(content: Path) -> bool:
    from tui_course.paths import default_content_dir

    return _real(content) == _real(default_content_dir())


def practice_dir(data: Path, content: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(_real(content))).hexdigest()[:16]
    return data / PRACTICE_DIR / digest


def recording_dir(data: Path, content: Path) -> Path:
    """Where answers and checks made with `content` are kept: `data` for the site's
    course, else that folder's practice store (made and marked here when it can be; the
    store says why when it cannot)."""
    if is_site_course(content):
        return data
    folder = practice_dir(data, content)
    from tui_course.paths import ensure_private_dir, write_file_safely

    try:
        ensure_private_dir(folder)
        if not (folder / MARKER).is_file():
            write_file_safely(folder / MARKER, os.fsencode(_real(content)) + b"\n", 0o600)
    except OSError:
        pass
    return folder


def is_practice(data: Path) -> bool:
    """A practice store: made by recording_dir, or inside a data folder's practice/."""
    return data.parent.name == PRACTICE_DIR or (data / MARKER).is_file()
