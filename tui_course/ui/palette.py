"""The command palette's entries for the course: one per lesson, quiz and lab, and the
app's own commands."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from textual.app import App, SystemCommand

from tui_course.content.models import Item, Lesson, Quiz
from tui_course.text.safe import markup_line
from tui_course.ui.screens.course import CourseScreen


def item_commands(
    items: Sequence[Item], open_item: Callable[[str], Awaitable[None]]
) -> Iterator[SystemCommand]:
    for item in items:
        if isinstance(item, Lesson):
            title, help_line = f"Lesson {item.order}: {item.title}", item.summary or "Open lesson"
        elif isinstance(item, Quiz):
            title, help_line = f"Quiz: {item.title}", f"{len(item.questions)} questions"
        else:
            title, help_line = f"Lab: {item.title}", item.summary

        async def open_it(item_id: str = item.id) -> None:
            await open_item(item_id)

        # Palette titles and help are parsed as markup: content must stay text.
        yield SystemCommand(markup_line(title), markup_line(help_line), open_it)


class CourseActions(Protocol):
    """What the palette asks of the app (CourseApp), named here so this module needs no
    import of it."""

    @property
    def items(self) -> Sequence[Item]: ...
    async def open_item(self, item_id: str, focus_content: bool = False) -> None: ...
    async def open_review(self) -> None: ...
    async def action_next_item(self) -> None: ...
    async def action_previous_item(self) -> None: ...
    def action_help(self) -> None: ...
    @property
    def main_screen(self) -> CourseScreen: ...
    @property
    def settings(self) -> HasDataDir: ...


class HasDataDir(Protocol):
    @property
    def data_dir(self) -> Path: ...


def course_commands(app: CourseActions) -> Iterator[SystemCommand]:
    """Every item, then moving on and back, review, help, the doctor and the outline."""
    yield from item_commands(app.items, lambda item_id: app.open_item(item_id, True))
    yield SystemCommand("Next item", "Open the next lesson, lab or quiz", app.action_next_item)
    yield SystemCommand(
        "Previous item", "Open the previous lesson, lab or quiz", app.action_previous_item
    )
    yield SystemCommand("Review", "Go through the questions due for review", app.open_review)
    yield SystemCommand("Help: keys", "Show every key", app.action_help)

    async def doctor() -> None:
        from tui_course.ui.screens.doctor import show_doctor

        assert isinstance(app, App)
        await show_doctor(app, app.settings.data_dir)

    yield SystemCommand("Doctor", "Check this account, terminal and class", doctor)
    outline = "Hide or show the course outline"
    yield SystemCommand("Toggle outline", outline, lambda: app.main_screen.action_toggle_outline())
