"""The one Pilot test on the shipped course: every lesson, quiz and lab opens at 80x24.

The other UI tests run on the fixture course (tests/fixtures/ui_course), so editing a
lesson breaks none of them; this smoke test is what still opens the course students get,
through the factory the CLI uses. Claims the shipped lessons make about the app are
checked without Pilot below.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import figures_cut, laid_out, notices, running, screen_text, shown, until
from tui_course.content.blocks.attention import AttentionParams
from tui_course.content.course import load_course
from tui_course.content.models import Item, Lesson
from tui_course.content.segments import BlockSegment, MarkdownSegment
from tui_course.paths import default_content_dir
from tui_course.ui.app import Settings, make_app
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.outline import Outline


async def test_every_shipped_item_opens_at_80x24_with_its_title(tmp_path: Path) -> None:
    app = make_app(Settings(default_content_dir(), tmp_path / "data"))
    async with running(app, size=(80, 24), notifications=True) as pilot:
        assert app.course.problems == ()
        assert app.query_one(Outline).max_scroll_y == 0  # the course and legend fit 80x24
        assert len(app.items) == len(app.course.lessons + app.course.quizzes + app.course.labs)
        problems: list[str] = []
        for item in app.items:
            await app.open_item(item.id)

            def drawn(opened: Item = item) -> bool:
                shows_title = opened.title in " ".join(screen_text(app).split())
                return shows_title and (
                    not isinstance(opened, Lesson) or laid_out(app.query_one(LessonView))
                )

            await until(pilot, drawn)
            assert app.current is not None and app.current.id == item.id
            text = " ".join((await shown(pilot)).split())
            if item.title not in text:
                problems.append(f"{item.id}: title not on screen")
            if "cannot be shown" in text:
                problems.append(f"{item.id}: {text}")
            if not isinstance(item, Lesson):
                continue
            problems += [f"{item.id}: {it}" for it in figures_cut(app.query_one(LessonView))]
        assert problems == []
        assert [notice for notice in await notices(pilot) if "cannot" in notice] == []


def test_a_shipped_lesson_that_says_tab_twice_reaches_a_sentence_box() -> None:
    """The lesson's way to the box is tested on the fixture (test_layout.py): Tab, Tab
    reaches the box of an editable attention figure that is the lesson's first figure."""
    course = load_course(default_content_dir())
    saying = [
        lesson
        for lesson in course.lessons
        if any(
            "Press Tab twice to reach the box" in " ".join(segment.text.split())
            for segment in lesson.segments
            if isinstance(segment, MarkdownSegment)
        )
    ]
    assert saying
    for lesson in saying:
        first = next(s for s in lesson.segments if not isinstance(s, MarkdownSegment))
        assert isinstance(first, BlockSegment), lesson.id
        assert isinstance(first.params, AttentionParams), lesson.id
        assert first.params.editable, lesson.id
