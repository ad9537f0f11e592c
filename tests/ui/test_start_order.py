"""The start item opens right after the first frame (CourseScreen.after_first_frame), and the
keyboard is the outline's from then on: a key pressed as the first lesson shows is not lost
while it loads."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets._markdown import MarkdownParagraph

from tests.ui.conftest import running, until
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.outline import Outline


async def test_a_key_pressed_as_the_first_lesson_shows_moves_the_outline(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with app.run_test(size=(120, 30)) as pilot:
        lesson_text = lambda: bool(app.query_one(LessonView).query(MarkdownParagraph))  # noqa: E731
        assert await until(pilot, lesson_text)
        outline = app.query_one(Outline)
        assert app.focused is outline
        assert app.current is not None and outline.highlighted_option is not None
        assert outline.highlighted_option.id == app.current.id
        start = outline.highlighted
        await pilot.press("down")
        assert outline.highlighted == start + 1  # the lesson below, not a lost key


async def test_a_callback_asked_for_after_the_first_frame_runs_at_once(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with running(app) as pilot:
        ran: list[str] = []
        app.main_screen.after_first_frame(lambda: ran.append("late"))
        assert await until(pilot, lambda: ran == ["late"])
