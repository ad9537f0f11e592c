"""What a new student ran into on the merged app, each pinned by the screen it broke."""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widgets import Static

from tests.ui.conftest import running, screen_text
from tests.ui.test_code_exercise import (
    COURSE,
    open_exercise,
    type_text,
    until,
    wrong_answer_checked,
)
from tui_course.render.code import verdict_lines
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.code_editor import CodeEditor
from tui_course.ui.widgets.listing_view import ListingView


async def test_typing_after_a_verdict_keeps_the_cursor_on_screen(
    build_app: Callable[..., CourseApp],
) -> None:
    """The verdict scrolls into view when it comes; the next key typed must bring the
    editor's cursor back, or the student types blind."""
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 24)) as pilot:
        view = await wrong_answer_checked(pilot)
        await type_text(pilot, "# more")
        quiz_box = next(node for node in view.ancestors if isinstance(node, ScrollableContainer))

        def cursor_shown() -> bool:
            x, y = view.editor.cursor_screen_offset
            return quiz_box.content_region.contains(x, y)

        await until(pilot, cursor_shown)


async def test_the_verdict_is_worded_for_the_width_it_has(
    build_app: Callable[..., CourseApp],
) -> None:
    """At 40 columns the verdict's prose and matrices fit the box: wrapped once, at its
    width, not at 80 and then again by the screen."""
    app = build_app("code", content=COURSE)
    async with running(app, size=(40, 24)) as pilot:
        view = await wrong_answer_checked(pilot)
        verdict = view.query_one(".code-verdict", Static)
        width = verdict.content_size.width
        drawn = [strip.text.rstrip() for strip in verdict.render_lines(Region(0, 0, *verdict.size))]
        assert drawn and width > 0
        assert max(len(line) for line in drawn) <= width, drawn
        assert view.state is not None and view.state.verdict is not None
        assert drawn == verdict_lines(view.state.verdict, width)  # worded at its width, once


async def test_a_listing_shows_all_its_code_at_40_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    """Read-only listings wrap at a narrow terminal; a height cap hid their last lines
    (a print call) inside a box that cannot be focused or scrolled."""
    app = build_app("attend")
    async with running(app, size=(40, 12)) as pilot:
        await until(pilot, lambda: len(app.query(ListingView)) >= 2)
        await pilot.pause()
        editors = [listing.query_one(CodeEditor) for listing in app.query(ListingView)]
        await until(pilot, lambda: all(editor.size.height > 0 for editor in editors))
        for editor in editors:
            assert editor.max_scroll_y == 0, (editor.size, editor.wrapped_document.height)


async def test_the_footer_offers_no_enter_while_enter_types_a_new_line(
    build_app: Callable[..., CourseApp],
) -> None:
    """In the code editor Enter starts a new line; a footer saying "Submit" for it sends
    the student hunting. Outside the editor Enter checks, and the footer says so again."""
    app = build_app("code", content=COURSE)
    async with running(app, size=(100, 30)) as pilot:
        view = await open_exercise(pilot)

        def footer() -> str:
            return screen_text(app).splitlines()[-1]

        # the footer draws the focused pane's keys in a frame after the focus moves (^r is
        # the exercise's in both panes: a busy run once read the frame between the two)
        shows = lambda: "^r Check" in footer() and "Submit" not in footer()  # noqa: E731
        await until(pilot, shows)  # raises if it never comes
        await pilot.press("escape")
        await until(pilot, lambda: not view.editor.has_focus)
        await until(pilot, lambda: "Submit" in footer())
