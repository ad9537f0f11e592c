"""A student's code read from a file they name: `attn-tui check FILE` and plain mode's
`check FILE`. The name is the student's to choose, so /dev/zero, a FIFO with no writer or a
folder must cost nothing and say what is wrong in a few words."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tui_course.content.code_model import MAX_CODE_BYTES


class CodeFileError(Exception):
    """A FILE that is not a readable regular file of code (said in a few words)."""


def read_code_file(path: Path) -> str:
    """The text of a regular file of at most MAX_CODE_BYTES, else CodeFileError.

    Opened without blocking (a FIFO with no writer does not hang), checked on the
    opened fd (what was opened is what is read), and read to at most the cap and a
    byte, so /dev/zero, a folder or a huge file cost nothing."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise CodeFileError(f"cannot read it ({error.strerror or error})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise CodeFileError("is a folder, not a file of code")
        if not stat.S_ISREG(info.st_mode):
            raise CodeFileError("is not a regular file (a device, a FIFO or a socket)")
        too_large = f"is larger than {MAX_CODE_BYTES // 1024} KB, the most a check takes"
        if info.st_size > MAX_CODE_BYTES:
            raise CodeFileError(too_large)
        chunks, left = [], MAX_CODE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise CodeFileError(f"cannot read it ({error.strerror or error})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_CODE_BYTES:
        raise CodeFileError(too_large + " (it grew while read)")
    return data.decode("utf-8", errors="replace")
