"""When something unexpected breaks: a short message for the student, details in a file.

A traceback over the lesson helps nobody in a lab room, and may quote content.
The full story goes to a private crash log in the data folder (0600, never
through a symlink), where a teacher can find it; the student reads one line.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import time
import traceback
from pathlib import Path

from tui_course import __version__
from tui_course.text.safe import one_line, path_text, plain_text

CRASH_PREFIX = "crash-"
KEEP_LOGS = 20  # older crash logs are removed so a crash loop cannot fill the disk
EXIT_SOFTWARE = 70  # sysexits.h EX_SOFTWARE: an internal error


def write_crash_log(data_dir: Path, error: BaseException) -> Path:
    """Write error's traceback to a new 0600 file in data_dir; return its path.

    Raises OSError when the folder or the file cannot be made.
    """
    from tui_course.paths import create_private_file, ensure_private_dir

    ensure_private_dir(data_dir)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = data_dir / f"{CRASH_PREFIX}{stamp}-{os.getpid()}.log"
    descriptor = create_private_file(path)  # O_EXCL|O_NOFOLLOW: a planted link is refused
    with os.fdopen(descriptor, "w", encoding="utf-8", errors="replace") as log:
        log.write(f"attn-tui {__version__} crashed at {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n")
        log.write(f"Python {platform.python_version()} on {platform.platform()}\n")
        # Cleaned too: a teacher will `cat` this file, and messages may quote content.
        log.write(f"command: {one_line(' '.join(sys.argv))}\n\n")
        log.write(plain_text("".join(traceback.format_exception(error))))
    _prune(data_dir)
    return path


def _prune(data_dir: Path) -> None:
    logs = sorted(data_dir.glob(f"{CRASH_PREFIX}*.log"))
    for old in logs[:-KEEP_LOGS]:
        with contextlib.suppress(OSError):
            old.unlink()


def crash_message(error: BaseException, log: Path | None, log_error: OSError | None) -> str:
    """The one paragraph a student sees (no traceback)."""
    what = one_line(f"{type(error).__name__}: {error}")[:300]
    lines = [f"attn-tui stopped after an unexpected error ({what})."]
    if log is not None:
        lines.append(f"Details are in {path_text(log)}; please pass that file to your teacher.")
    else:
        reason = one_line(str(log_error)) if log_error else "unknown reason"
        lines.append(f"The details could not be saved ({reason}); they follow.")
    lines.append("Answers already submitted are saved.")
    return "\n".join(lines)


def report_crash(data_dir: Path, error: BaseException) -> int:
    """Log the crash, print the short message to stderr, return the exit status (70)."""
    log: Path | None = None
    log_error: OSError | None = None
    try:
        log = write_crash_log(data_dir, error)
    except OSError as failure:
        log_error = failure
    print(crash_message(error, log, log_error), file=sys.stderr)
    if log is None:
        print(plain_text("".join(traceback.format_exception(error))), file=sys.stderr)
    return EXIT_SOFTWARE
