"""The app when its progress file fails: the student reads one line and goes on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button

from tests.conftest import cap_database_at_its_size, exclusive_lock, fill_disk
from tests.ui.conftest import notices, running, screen_text, shown, until, widget_text
from tui_course.progress.store import DB_NAME, ProgressStore
from tui_course.ui.app import CourseApp


def saved(data: Path) -> None:
    with ProgressStore(data) as store:
        store.set_setting("last_opened", "attend")
        store.mark_lesson_done("word-by-word")


async def test_read_only_progress_file_says_so_and_the_quiz_goes_on(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    saved(data)
    (data / DB_NAME).chmod(0o444)
    before = (data / DB_NAME).read_bytes()
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        assert any("read-only" in notice for notice in await notices(pilot))
        await pilot.press("enter", "2", "enter")  # past the intro, then the right answer
        assert "Correct." in await shown(pilot)
        await pilot.press("escape", "n")
        await pilot.pause()
        await pilot.press("q")
    assert (data / DB_NAME).read_bytes() == before


async def test_writes_that_fail_while_running_are_one_notice(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    """A full disk mid-session (SQLite's page limit gives the real SQLITE_FULL)."""
    data = tmp_path / "data"
    saved(data)
    app = build_app("attend", data=data)
    async with running(app, notifications=True) as pilot:
        cap_database_at_its_size(app.store)
        for index in range(40):  # settings and marks: each fails, the app goes on
            app.store.set_setting(f"filler:{index}", "x" * 400)
        for _ in range(4):
            await pilot.press("n")
            await pilot.pause()
        assert await until(pilot, lambda: app.current is not None and app.current.id != "attend")
        await pilot.pause()
        # every notice said (app.notices), not what is still on screen: on a busy machine a
        # notice's 8 s can run out before the keys are through
        full = [line for line in app.notices if "disk or your quota is full" in line]
        assert len(full) == 1, app.notices


async def test_a_long_lock_fails_an_answer_quickly_and_the_app_goes_on(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    saved(data)
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        await pilot.press("enter")  # past the intro: the quiz's pass is saved before the lock
        with exclusive_lock(data / DB_NAME):
            # said while the lock is still held: the answer gave up (after its
            # ANSWER_TIMEOUT_MS) instead of waiting for the lock to go
            await pilot.press("2", "enter")
            assert await until(pilot, lambda: "could not be saved" in screen_text(app))
            assert "Correct." not in await shown(pilot)
            await pilot.press("escape", "down", "enter")  # open another item: no crash
            await pilot.pause()
        assert app.current is not None
        await app.open_item("first-check")
        await pilot.press("enter", "2", "enter")  # nothing was saved: it opens on its intro
        assert "Correct." in await shown(pilot)
        assert [a.correct for a in app.store.attempts("first-check")] == [True]


async def test_full_disk_before_the_first_start(
    build_app: Callable[..., CourseApp], small_disk: Path
) -> None:
    data = small_disk / "data"
    data.mkdir()
    fill_disk(small_disk)
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        assert any("not saved this session" in notice for notice in await notices(pilot))
        await pilot.press("enter", "2", "enter")
        assert "Correct." in await shown(pilot)
    assert [p.name for p in data.iterdir() if p.name != DB_NAME] == []


async def test_training_log_folder_that_cannot_be_made(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    saved(data)
    (data / "logs").write_text("a file where the logs folder should be")
    app = build_app("training-lab", data=data)
    app.training_extra_installed = lambda: True  # the real factory, which makes the log
    async with running(app) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        status = widget_text(app, "#train-status")
        assert status.startswith("Cannot start: the training log cannot be written")
        assert app.query_one("#train-cancel", Button).disabled  # nothing is running


async def test_a_notice_naming_a_hostile_folder_is_shown_as_text(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "[" / "] [@click=app.quit]x"  # the path reads "[/] [@click=...]"
    data.mkdir(parents=True)
    data.chmod(0o555)
    try:
        app = build_app("first-check", data=data)
        async with running(app, notifications=True) as pilot:
            shown_notices = await notices(pilot)
            assert any("[/] [@click=app.quit]x is read-only" in n for n in shown_notices)
            assert app.is_running
    finally:
        data.chmod(0o700)


async def test_a_retry_pass_that_ends_under_a_lock_shows_its_summary(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    """The end of a retry pass reads the first-try score from the store: another program
    holding the file then costs that one line, never the app."""
    data = tmp_path / "data"
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        await pilot.press("enter", "right", "right", "right")  # first pass: every one skipped
        await pilot.press("r")
        await pilot.press("right", "right", "v")  # the retry: two skipped, the last revealed
        with exclusive_lock(data / DB_NAME):
            await pilot.press("enter")  # the pass ends while the file is held
            text = await shown(pilot)
        assert app.is_running
        assert "This time: 0 of 3 right." in text
        assert "first-try score stays" not in text
    assert [row.verdict for row in ProgressStore(data).quiz_rows("first-check")][-1] == "revealed"
