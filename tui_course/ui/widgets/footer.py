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
        self._forget_removed_keys()
        widgets = list(super().compose())
        active = self.screen.active_bindings if widgets else {}
        if "q" in active:
            # Quit is bound to q and ctrl+q; Textual shows one key per action, and picks
            # ctrl+q. Show q, unless a text box has the focus and takes it as a letter.
            for widget in widgets:
                if isinstance(widget, FooterKey) and footer_rank(widget.action) == 0:
                    widget.key = widget.key_display = "q"
        elif "escape" in active:
            # In a text box o (and q) type letters: say that Esc leaves the box for them.
            _, binding, enabled, tooltip = active["escape"]
            key = FooterKey(
                "escape",
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            )
            widgets.append(key.data_bind(compact=Footer.compact))
        return sorted(
            widgets,
            # A group of keys (PE figure's "+ - Positions") is one of the pane's keys.
            key=lambda widget: (
                footer_rank(widget.action) if isinstance(widget, FooterKey) else len(ALWAYS_FIRST)
            ),
        )

    def _forget_removed_keys(self) -> None:
        """Drop the removed keys' watchers of `compact`. Each key binds it (data_bind), and
        Textual prunes a watcher only when the watched value changes, which `compact` never
        does: every focus change that redrew the footer kept its old keys, with their render
        caches, alive for the whole session (megabytes an hour of use)."""
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:
            watchers[:] = [(node, callback) for node, callback in watchers if node.is_attached]
