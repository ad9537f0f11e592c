"""The command palette's entries for the course: one per lesson, quiz and lab."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence

from textual.app import SystemCommand

from tui_course.content.models import Item, Lesson, Quiz
from tui_course.text.safe import markup_line


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
