"""What a returning student's start skips, and what it still shows: lessons that passed
their live-block check are not parsed again, a broken or changed one is; the footer
rebuilds its keys only when they change, and then into the key widgets it has."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from textual.widgets._footer import FooterKey

from tests.conftest import REPO
from tests.ui.conftest import notices, running, until
from tui_course.content.models import lessons_fingerprint
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
        now = list(footer.query(FooterKey))
        # The new words are drawn into the keys already there: none is mounted again,
        # and only a count that grew adds keys.
        assert len(set(now) - set(keys)) == max(0, len(now) - len(keys))
        assert len(set(now) & set(keys)) == min(len(now), len(keys))


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
    app.lesson_check.passed("a fingerprint")
    assert problems == []


async def test_the_course_one_start_parsed_is_read_at_the_next_until_it_changes(
    build_app: Callable[..., CourseApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first start caches the parsed course after its first screen; the next reads it
    and parses nothing; a quiz edited since is parsed again and shown as edited."""
    from tui_course.content import course, course_cache

    monkeypatch.setattr(course_cache, "SETTLE_SECONDS", -3600.0)  # a copy made just now
    content = course_copy(tmp_path)
    cache = tmp_path / "data" / course_cache.CACHE_NAME
    first = build_app(content=content)
    assert first.save_course_cache is not None and not cache.exists()
    async with running(first) as pilot:
        assert await until(pilot, cache.exists)
    parsed_roots: list[Path] = []
    real = course.load_course

    def counted(root: Path, **options: bool) -> object:
        parsed_roots.append(root)
        return real(root, **options)

    monkeypatch.setattr(course, "load_course", counted)
    again = build_app(content=content)
    assert parsed_roots == [] and again.save_course_cache is None
    assert again.course == first.course
    async with running(again, size=(120, 30)) as pilot:
        await again.open_item("small")
        assert await until(pilot, lambda: "Small check" in str(again.sub_title))
    quiz = content / "quizzes" / "small.toml"
    quiz.write_text(quiz.read_text().replace('"Small check"', '"Small test"'))
    edited = build_app(content=content)
    assert parsed_roots == [content]
    async with running(edited, size=(120, 30)) as pilot:
        await edited.open_item("small")
        assert await until(pilot, lambda: "Small test" in str(edited.sub_title))
