"""One error type for every content problem, so the CLI and the app print the same line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui_course.text.safe import one_line, path_text


@dataclass(frozen=True)
class ContentError(Exception):
    """A problem in a content file, printed as ``path:line: message``."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        """One printable line: file names and messages may quote hostile content."""
        where = f"{path_text(self.path)}:{self.line}" if self.line else path_text(self.path)
        return f"{where}: {one_line(self.message)}"


def display_path(path: Path, root: Path | None) -> str:
    """The path as a reader of the content folder knows it (relative to the root)."""
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()
