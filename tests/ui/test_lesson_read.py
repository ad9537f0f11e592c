"""A lesson counts as read when its end has been on screen, not when `n` was pressed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.ui.conftest import laid_out, running, until
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.lesson_view import LessonView


def _short_course(root: Path) -> Path:
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    for order, name in ((1, "short"), (2, "long")):
        body = "Hello.\n" if name == "short" else "\n\n".join(f"Line {n}." for n in range(80))
        (root / "lessons" / f"{name}.md").write_text(
            f'+++\nid = "{name}"\ntitle = "{name}"\norder = {order}\n+++\n\n{body}\n',
            encoding="utf-8",
        )
    return root


async def test_short_lesson_is_read_once_shown_long_one_only_at_its_end(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("short", content=_short_course(tmp_path / "content"))
    async with running(app) as pilot:
        view = app.query_one(LessonView)
        await until(pilot, lambda: bool(app.store.lessons_done()))  # laid out, end on screen
        assert app.store.lessons_done() == {"short"}
        await pilot.press("n")
        await until(
            pilot,
            lambda: view.lesson is not None and view.lesson.id == "long" and laid_out(view),
        )
        assert app.current is not None and app.current.id == "long"
        view.check_finished()  # what its 0.3 s timer does: shown, not at its end
        await pilot.pause()
        assert app.store.lessons_done() == {"short"}
        await pilot.press("p")  # walking away is not reading
        # The long lesson's end-check timer was set before the short one's, with the same
        # delay, so once the short one has sent its finish the long one's check has run.
        await until(
            pilot,
            lambda: view.lesson is not None and view.lesson.id == "short" and view.finish_reported,
        )
        assert view.finish_reported
        assert app.store.lessons_done() == {"short"}
