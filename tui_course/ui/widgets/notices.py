"""Notices in the layout, above the footer: a toast would cover a quiz's hints and feedback."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui_course.text.safe import one_line

SEVERITY_WORDS = {"information": "", "warning": "Warning: ", "error": "Error: "}
MAX_SHOWN = 3  # the newest few; older ones are still in CourseApp.notices


def notice_line(message: str, title: str, severity: str) -> str:
    """One line of text: "Warning: Progress: ..."; "Quit? Training is..." rather than
    "Quit?: Training is..."."""
    joined = f"{title} " if title.endswith(("?", "!", ":", ".")) else f"{title}: "
    return one_line(f"{SEVERITY_WORDS.get(severity, '')}{joined if title else ''}{message}")


class NoticeLines(Static):
    """Each notice stays for its timeout, then goes; the content above moves, it is not covered."""

    DEFAULT_CSS = """
    NoticeLines {
        height: auto;
        max-height: 3;
        display: none;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self._shown: list[tuple[int, str]] = []
        self._serial = 0

    def add(self, line: str, timeout: float) -> None:
        self._serial += 1
        serial = self._serial
        self._shown.append((serial, line))
        self._draw()
        self.set_timer(timeout, lambda: self._expire(serial))

    def _expire(self, serial: int) -> None:
        self._shown = [(key, line) for key, line in self._shown if key != serial]
        self._draw()

    @property
    def lines(self) -> list[str]:
        return [line for _, line in self._shown[-MAX_SHOWN:]]

    def _draw(self) -> None:
        self.update(Text("\n".join(self.lines), overflow="fold"))
        self.display = bool(self._shown)
