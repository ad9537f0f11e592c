"""The footer: the focused pane's keys, with quit, help and the outline always first."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Shown first, so a narrow terminal cuts the pane's keys rather than these.
ALWAYS_FIRST = ("quit", "help", "toggle_outline")


def footer_rank(action: str) -> int:
    name = action.removeprefix("app.")
    return ALWAYS_FIRST.index(name) if name in ALWAYS_FIRST else len(ALWAYS_FIRST)


class CourseFooter(Footer):
    """Textual's footer, reordered: at 40 columns q, f1 and o still show."""

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        return sorted(
            widgets,
            # A group of keys (PE figure's "+ - Positions") is one of the pane's keys.
            key=lambda widget: (
                footer_rank(widget.action) if isinstance(widget, FooterKey) else len(ALWAYS_FIRST)
            ),
        )
