"""What a returning student's start skips, and what it still shows: lessons that passed
their live-block check are not parsed again, a broken or changed one is; the footer
rebuilds its keys only when they change."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from textual.widgets._footer import FooterKey

from tests.conftest import REPO
from tests.ui.conftest import notices, running, until
from tui_course.content.lessons import lessons_fingerprint
from tui_course.progress.outline import LESSON_BLOCKS_CHECKED
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.footer import CourseFooter

PLAIN_COURSE = REPO / "tests" / "fixtures" / "plain_course"


def course_copy(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(PLAIN_COURSE, root)
    return root


def parsed(app: CourseApp) -> set[str]:
    """The lessons whose live blocks were found (Lesson.segments is computed once)."""
    return {lesson.id for lesson in app.course.lessons if "segments" in vars(lesson)}


class FirstStart(NamedTuple):
    content: Path  # a copy of the plain course, the test's to change
    app: CourseApp  # the first start, ended
    fingerprint: str  # of the lessons whose live blocks that start checked and saved


@pytest.fixture
async def first_start(build_app: Callable[..., CourseApp], tmp_path: Path) -> FirstStart:
    """A first start that checked every lesson's live blocks and saved that they passed."""
    content = course_copy(tmp_path)
    first = build_app(content=content)
    fingerprint = lessons_fingerprint(first.course.lessons)
    async with running(first) as pilot:
        assert await until(
            pilot, lambda: first.store.get_setting(LESSON_BLOCKS_CHECKED) == fingerprint
        )
    return FirstStart(content, first, fingerprint)


async def test_lessons_that_passed_are_not_parsed_again(
    build_app: Callable[..., CourseApp], first_start: FirstStart
) -> None:
    assert parsed(first_start.app) == {"attend", "positions"}
    content = first_start.content
    again = build_app(content=content)
    async with running(again, size=(120, 30)) as pilot:
        await again.workers.wait_for_complete()
        await pilot.pause()
        assert again.current is not None and again.current.id == "attend"
        assert parsed(again) == {"attend"}  # only the lesson on screen, by the lesson view


async def test_a_lesson_broken_after_it_passed_is_reported_at_every_start(
    build_app: Callable[..., CourseApp], first_start: FirstStart
) -> None:
    content = first_start.content
    lesson = content / "lessons" / "02-positions.md"
    lesson.write_text(lesson.read_text() + "\n```attentoin\nx = 1\n```\n")
    for _ in range(2):
        app = build_app(content=content)
        async with running(app) as pilot:

            def reported(app: CourseApp = app) -> bool:
                return any("02-positions.md" in n and "attentoin" in n for n in app.notices)

            assert await until(pilot, reported)
            assert any("attentoin" in line for line in await notices(pilot))  # on screen
            assert app.store.get_setting(LESSON_BLOCKS_CHECKED) == first_start.fingerprint  # old


async def test_the_footer_rebuilds_its_keys_only_when_they_change(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app(content=course_copy(tmp_path))
    async with running(app, size=(120, 30)) as pilot:
        footer = app.query_one(CourseFooter)

        def descriptions() -> set[str]:
            return {key.description for key in footer.query(FooterKey)}

        assert await until(pilot, lambda: "Next item" in descriptions())
        keys = list(footer.query(FooterKey))
        for _ in range(3):  # what a focus move or a redraw sends, keys unchanged
            app.screen.bindings_updated_signal.publish(app.screen)
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query(FooterKey)) == keys  # the very same widgets
        await app.open_item("small", focus_content=True)  # the quiz has keys of its own
        assert await until(pilot, lambda: "Start" in descriptions())
        assert not set(footer.query(FooterKey)) & set(keys)


async def test_a_lesson_check_ending_after_the_app_closed_writes_nothing(
    build_app: Callable[..., CourseApp],
) -> None:
    """The check runs in a thread; when it ends as the app quits, its memo must not reach
    the closed store (a write there was a "Progress not saved" notice on no screen)."""
    app = build_app()
    async with running(app):
        pass
    problems: list[str] = []
    app.store.on_problem = problems.append
    app._lesson_blocks_passed("a fingerprint")
    assert problems == []
