"""In the app: finishing a quiz drops a submission; a failed one says "submission pending"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.ui.conftest import build_app, notices, running
from tests.ui.test_quiz import quiz_text
from tui_course.classroom.submission import login_name, pending_files
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.outline import Outline

__all__ = ["build_app"]  # the UI tests' fixture, used here too


async def finish_first_check(app: CourseApp) -> str:
    """Answer the three questions by keys; return the outline's notice line."""
    async with running(app) as pilot:
        await pilot.press("enter")  # past the intro
        await pilot.press("2", "enter", "enter", "1", "enter", "enter", "1", "2", "enter")
        await pilot.press("enter")
        assert "First-try score: 3 of 3." in await quiz_text(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        outline = app.query_one(Outline)
        if not outline.notice:
            return ""
        shown_lines = [outline.get_option_at_index(i) for i in range(outline.option_count)]
        (line,) = [o for o in shown_lines if str(o.prompt) == outline.notice]
        assert line.disabled  # under the items, above the legend; it cannot be opened
        return outline.notice


async def test_finishing_a_quiz_submits_it(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path
) -> None:
    app = build_app("first-check")
    label = await finish_first_check(app)
    (path,) = (class_dir / "dropbox").iterdir()
    payload = json.loads(path.read_text())
    assert [quiz["id"] for quiz in payload["quizzes"]] == ["first-check"]
    assert payload["quizzes"][0]["questions"] == 3
    assert payload["quizzes"][0]["tries"] == 3
    assert label == ""


async def test_reading_a_lesson_to_its_end_sends_the_lessons_read(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path
) -> None:
    """The report's lessons column must not wait for the next finished quiz."""
    from tui_course.ui.widgets.lesson_view import LessonView

    app = build_app("word-by-word")
    async with running(app) as pilot:
        view = app.query_one(LessonView)
        await pilot.pause()
        view.focus()
        await pilot.press("end")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("home", "end")  # read again: nothing new to send
        await pilot.pause()
        await app.workers.wait_for_complete()
    (path,) = (class_dir / "dropbox").iterdir()
    payload = json.loads(path.read_text())
    assert payload["quizzes"] == []
    read = [lesson["id"] for lesson in payload["lessons"] if lesson["read"]]
    assert read == ["word-by-word"]


async def test_a_review_pass_sends_the_quizzes_it_came_from(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path
) -> None:
    """Review answers raise mastered (never first-try): the report must see them."""
    from datetime import UTC, datetime, timedelta

    from tui_course.classroom.report import build_report
    from tui_course.content.models import REVIEW_ID

    clock = [datetime(2026, 11, 30, 9, 0, tzinfo=UTC)]
    app = build_app("first-check")
    app.now = lambda: clock[0]
    async with running(app) as pilot:
        await pilot.press("enter", "v", "enter", "right", "right", "enter")  # revealed, 2 skipped
        await app.workers.wait_for_complete()
        clock[0] += timedelta(minutes=2)
        await app.open_item(REVIEW_ID)
        await pilot.press("2", "enter", "enter", "1", "enter", "enter", "1", "2", "enter", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    report = build_report(class_dir / "dropbox", ["first-check"])
    (row,) = report.students.values()
    quiz = row.result("first-check")
    assert quiz is not None and (quiz.first_try, quiz.mastered) == (0, 3)


async def test_quitting_part_way_sends_the_quiz_in_progress(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path, tmp_path: Path
) -> None:
    from tui_course.classroom.report import build_report

    app = build_app("first-check")
    async with running(app) as pilot:
        await pilot.press("enter", "2", "enter", "enter")  # one of three answered
        await app.action_quit()
    report = build_report(class_dir / "dropbox", ["first-check"])
    quiz = report.students[login_name()].result("first-check")
    assert quiz is not None
    assert (quiz.state, quiz.answered, quiz.first_try) == ("in progress", 1, None)
    assert pending_files(tmp_path / "data") == []
    (class_dir / "dropbox").rename(class_dir / "away")  # unreachable: kept for the next start
    again = build_app("first-check")
    async with running(again) as pilot:
        await again.action_quit()
    assert len(pending_files(tmp_path / "data")) == 1
    finished = build_app("by-hand")  # nothing part-way... but first-check still is
    (class_dir / "away").rename(class_dir / "dropbox")
    async with running(finished) as pilot:
        await finished.workers.wait_for_complete()  # the start sends what is pending
        await pilot.pause()
    assert pending_files(tmp_path / "data") == []


async def test_unreachable_dropbox_leaves_it_pending_then_retries(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path, tmp_path: Path
) -> None:
    (class_dir / "dropbox").rename(class_dir / "away")
    app = build_app("first-check")
    assert await finish_first_check(app) == "(!) submission pending"
    assert len(pending_files(tmp_path / "data")) == 1
    (class_dir / "away").rename(class_dir / "dropbox")
    again = build_app()
    async with running(again) as pilot:
        await again.workers.wait_for_complete()
        await pilot.pause()
        assert again.query_one(Outline).notice == ""
    assert pending_files(tmp_path / "data") == []
    assert len(list((class_dir / "dropbox").iterdir())) == 1


async def test_broken_site_config_is_a_notice_not_a_crash(
    build_app: Callable[..., CourseApp], site_config: Path
) -> None:
    site_config.write_text("class_dir = 3\n", encoding="utf-8")
    app = build_app()
    async with running(app) as pilot:
        messages = await notices(pilot)
    assert any("site.toml:1: 'class_dir' must be" in m for m in messages)


def test_unreadable_progress_sends_nothing_and_does_not_raise(
    class_dir: Path, tmp_path: Path, course_root: Path
) -> None:
    from tui_course.classroom.link import ClassLink
    from tui_course.content.course import load_course
    from tui_course.progress.store import ProgressStore

    store = ProgressStore(tmp_path / "data")
    store.close()  # any read now fails
    link = ClassLink(class_dir, tmp_path / "data")
    assert link.payload(load_course(course_root), store, ["first-check"]) is None


async def test_a_quiz_finished_while_the_progress_file_is_held_is_sent_with_the_next(
    build_app: Callable[..., CourseApp], class_dir: Path, site_config: Path, tmp_path: Path
) -> None:
    """Its results cannot be read at the finish: the student is told, and they go to the
    class folder with the next quiz finished (not silently never)."""
    from tests.conftest import exclusive_lock
    from tests.ui.conftest import notices
    from tui_course.progress.store import DB_NAME

    data = tmp_path / "data"
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        await pilot.press("enter", "right", "right", "v")  # last question closed, not finished
        with exclusive_lock(data / DB_NAME):
            await pilot.press("enter")  # the pass ends while another program holds the file
            assert "First-try score: 0 of 3." in await quiz_text(pilot)
            await app.workers.wait_for_complete()
            shown_notices = await notices(pilot)
        assert any("not sent to the class folder" in n for n in shown_notices), shown_notices
        assert not list((class_dir / "dropbox").iterdir())
        await app.open_item("by-hand")
        await pilot.press("enter")
        while "Finished" not in await quiz_text(pilot):  # skip every question
            await pilot.press("escape", "right")
        await app.workers.wait_for_complete()
        await pilot.pause()
    (path,) = (class_dir / "dropbox").iterdir()
    payload = json.loads(path.read_text())
    assert sorted(quiz["id"] for quiz in payload["quizzes"]) == ["by-hand", "first-check"]
    assert {quiz["id"]: quiz["reveals"] for quiz in payload["quizzes"]}["first-check"] == 1
