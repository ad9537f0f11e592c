"""The start item opens right after the first frame (CourseScreen.after_first_frame), and the
keyboard is the outline's from then on: a key pressed as the first lesson shows is not lost
while it loads."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.geometry import Size
from textual.widgets import OptionList
from textual.widgets._markdown import MarkdownParagraph

from tests.ui.conftest import running, screen_text, until
from tui_course.ui.app import CourseApp
from tui_course.ui.screens.course import CourseScreen
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


async def test_the_outline_has_focus_in_the_first_frame_and_is_not_drawn_again_after_it(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first focus is given before the first frame, which styles it (given after it, the
    focus tinted every row and the first lesson's frame drew the whole outline again). The
    Resize that comes after the first frame, at the width the rows were drawn at, keeps
    them; a later resize still drops them, and the rows are drawn again."""
    cleared: list[Size] = []
    clear_caches = OptionList._clear_caches

    def counting(self: OptionList) -> None:
        if isinstance(self, Outline):
            cleared.append(self.size)
        clear_caches(self)

    monkeypatch.setattr(OptionList, "_clear_caches", counting)
    focus_at_first_frame: list[bool] = []
    screen_resumed = CourseScreen.on_screen_resume

    def resumed(self: CourseScreen) -> None:
        focus_at_first_frame.append(self.query_one(Outline).has_focus)
        screen_resumed(self)

    monkeypatch.setattr(CourseScreen, "on_screen_resume", resumed)
    app = build_app()
    async with app.run_test(size=(120, 30)) as pilot:
        lesson_text = lambda: bool(app.query_one(LessonView).query(MarkdownParagraph))  # noqa: E731
        assert await until(pilot, lesson_text)
        await pilot.pause()
        assert focus_at_first_frame[:1] == [True]
        assert cleared == []  # the first frame's rows were kept
        outline = app.query_one(Outline)
        first_title = outline.course_items[0].title
        assert first_title in screen_text(app)
        await pilot.resize_terminal(120, 36)
        assert await until(pilot, lambda: outline.size.height > 26)
        await pilot.pause()
        assert cleared and cleared[-1] == outline.size  # dropped, as OptionList does
        assert first_title in screen_text(app)
