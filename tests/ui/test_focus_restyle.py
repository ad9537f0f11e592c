"""A focus move restyles the pane it enters or leaves, not the whole screen: Textual
restyles every node under the top-most one with a `:focus-within` rule, and a rule on
`*` gives every node one (a returning student's first focus then cost a full restyle)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual.dom import DOMNode
from textual.widgets import Footer, Header

from tests.ui.conftest import running, until
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.outline import Outline


async def test_moving_focus_between_outline_and_content_restyles_only_the_pane(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with running(app, size=(120, 30)) as pilot:
        lesson = app.query_one(LessonView)
        outline = app.query_one(Outline)
        assert await until(pilot, lambda: outline.has_focus or lesson.has_focus)
        restyled: list[DOMNode] = []
        update_nodes = app.stylesheet.update_nodes

        def recording(nodes: Iterable[DOMNode], animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            update_nodes(nodes, animate=animate)

        app.stylesheet.update_nodes = recording  # type: ignore[method-assign]
        for pane in (lesson, outline, lesson):
            pane.focus()
            assert await until(pilot, lambda pane=pane: pane.has_focus)
        assert restyled, "a focus move restyles the pane it marks"
        assert lesson in restyled  # its focus bar shows
        for node in restyled:  # the outline for its own :focus, the lesson's subtree
            assert node is outline or node is lesson or lesson in node.ancestors, node
        bystanders = [*app.query(Header), *app.query(Footer), app.query_one("#notices")]
        assert not set(bystanders) & set(restyled)
