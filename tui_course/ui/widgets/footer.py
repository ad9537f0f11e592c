"""The footer: the focused pane's keys, with quit, help and the outline always first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

from tui_course.ui.textual_compat import FooterKey, prune_watchers

if TYPE_CHECKING:
    from textual.screen import Screen

# Shown first, so a narrow terminal cuts the pane's keys rather than these.
ALWAYS_FIRST = ("quit", "help", "toggle_outline")
PALETTE_CLASS = "-command-palette"  # Textual's class for the palette's key, docked right


def footer_rank(action: str) -> int:
    name = action.removeprefix("app.")
    return ALWAYS_FIRST.index(name) if name in ALWAYS_FIRST else len(ALWAYS_FIRST)


class CourseFooter(Footer):
    """Textual's footer, reordered: at 40 columns q, f1 and o still show."""

    def __init__(self) -> None:
        super().__init__()
        self._keys_drawn: tuple[object, ...] | None = None  # what the last compose showed
        self._redraw_pending = False
        self._held = False

    def hold(self) -> None:
        """Draw no keys until release(). While a returning student's quiz opens, the keys
        would be drawn for no pane (the quiz takes focus once open), then drawn again."""
        self._held = True

    def release(self) -> None:
        self._held = False
        # Through the app's queue, after any focus change queued there meanwhile.
        self.app.call_later(self.screen.refresh_bindings)

    def bindings_changed(self, screen: Screen) -> None:  # type: ignore[type-arg]
        """Rebuild the keys once a frame at most, and only when they changed. Textual's
        footer rebuilds every key on each bindings signal (a focus move, each redraw of a
        quiz), 10-30 ms of CPU each: six times before a returning student's quiz summary
        showed, twice for the same keys in one frame."""
        self._bindings_ready = True
        if self._held or not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._redraw_pending:
            self._redraw_pending = True
            self.call_after_refresh(self._redraw_if_changed)

    async def _redraw_if_changed(self) -> None:
        self._redraw_pending = False
        if self.is_attached and self._keys_now() != self._keys_drawn:
            await self._redraw()

    async def _redraw(self) -> None:
        """The new keys drawn into the key widgets already there: a quiz's next question
        changes the words of a few keys, and mounting a whole new row of keys (their CSS,
        their styles, a layout) cost more than the question itself. A key no longer
        wanted is hidden and kept for the next longer row; a group of keys (a KeyGroup and
        its label) is composed afresh, as Textual does."""
        shown = [active.binding for active in self.screen.active_bindings.values()]
        grouped = any(binding.show and binding.group is not None for binding in shown)
        drawn = list(self.children)
        if grouped or not all(isinstance(widget, FooterKey) for widget in drawn):
            await self.recompose()  # (composing a group needs Textual's compose stack)
            return
        wanted = list(self.compose())
        added: list[Widget] = []
        for in_palette in (False, True):
            new_keys = [key for key in wanted if key.has_class(PALETTE_CLASS) == in_palette]
            on_screen = [key for key in drawn if key.has_class(PALETTE_CLASS) == in_palette]
            for new, old in zip(new_keys, on_screen, strict=False):
                assert isinstance(new, FooterKey) and isinstance(old, FooterKey)
                _copy_key(new, old)
                old.display = True
            for spare in on_screen[len(new_keys) :]:
                assert isinstance(spare, FooterKey)
                spare.display = False
                spare.description = spare.key_display = ""  # no stale words in a query
            added += new_keys[len(on_screen) :]
        if added:
            await self.mount_all(added)

    def _keys_now(self) -> tuple[object, ...]:
        """Everything compose draws from: each shown key (and q, Esc and the palette's,
        which it looks up), its binding, whether enabled, its tooltip."""
        looked_up = ("q", "escape", self.app.COMMAND_PALETTE_BINDING)
        return tuple(
            (key, active.binding, active.enabled, active.tooltip)
            for key, active in self.screen.active_bindings.items()
            if active.binding.show or key in looked_up
        )

    def compose(self) -> ComposeResult:
        self._forget_removed_keys()
        self._keys_drawn = self._keys_now() if self._bindings_ready else None
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
        prune_watchers(self, "compact", lambda node: node.is_attached)


def _copy_key(new: FooterKey, old: FooterKey) -> None:
    """Make the key on screen (`old`) say what `new` says; repainted only if it changed."""
    shown = (old.key, old.key_display, old.description, old.action, old._disabled, old.tooltip)
    wanted = (new.key, new.key_display, new.description, new.action, new._disabled, new.tooltip)
    if shown == wanted:
        return
    width_changed = (old.key_display, old.description) != (new.key_display, new.description)
    old.key, old.key_display, old.description, old.action = wanted[:4]
    old._disabled = new._disabled
    old.tooltip = new.tooltip
    old.set_class(new._disabled, "-disabled")
    old.refresh(layout=width_changed)
