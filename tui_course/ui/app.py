"""The course app and its one factory (make_app), used by the CLI, the tests and the
benchmarks. The app coordinates: what opens, what is saved and sent, what the student is
told. The layout and the outline's overlay are CourseScreen's (screens/course.py); the
start, leaving, the class drop-box and the lesson check have modules of their own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, OptionList

from tui_course.content.errors import ContentError
from tui_course.content.models import REVIEW_ID, Course, Item, Lesson, Quiz
from tui_course.progress.outline import LAST_OPENED
from tui_course.progress.store import ProgressStore, StoreError
from tui_course.study import OutlineState, Study
from tui_course.text.safe import clean, one_line, path_text
from tui_course.ui import content_views, css_cache, startup_gc
from tui_course.ui.ascii_mode import ascii_key, ascii_only_here, ascii_title
from tui_course.ui.class_dropbox import DropBoxClient
from tui_course.ui.leaving import Leaving
from tui_course.ui.lesson_check import LessonBlocksCheck
from tui_course.ui.screens.course import CourseScreen
from tui_course.ui.start_up import StartItem, save_for_next_start, start_up_notices
from tui_course.ui.textual_compat import clear_exit_renderables
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.notices import NoticeLines, notice_line
from tui_course.ui.widgets.outline import Outline

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.notifications import SeverityLevel

    from tui_course.content.session import QuizSession
    from tui_course.ui.widgets.quiz_view import QuizView
    from tui_course.ui.widgets.training_panel import RunFactory, TrainingPanel


@dataclass(frozen=True)
class Settings:
    content_dir: Path
    data_dir: Path
    open_id: str | None = None
    shuffle_options: bool = True  # each student sees quiz options in an order of their own


class CourseApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "attn-tui"
    AUTO_FOCUS = None  # the course screen picks the first focus (CourseScreen.first_focus)
    SUB_TITLE = "Transformers and self-attention"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        # Shown where q types a letter (a text box); elsewhere the footer shows q (footer.py).
        Binding("ctrl+q", "quit", "Quit"),
        Binding("f1,question_mark", "help", "Help"),
    ]

    def __init__(self, course: Course, store: ProgressStore, settings: Settings) -> None:
        super().__init__()
        self.ascii_only = ascii_only_here()
        if self.ascii_only:
            self.add_class("-ascii")
        self.course = course
        self.store = store
        self.settings = settings
        self.items = course.outline()
        self.current: Item | None = None
        self.start_item = StartItem(
            self,
            self.open_item,
            lambda: self.current is not None,
            lambda: self.main_screen.first_focus(),
            self._after_start,
            lambda callback: self.main_screen.after_first_frame(callback),
        )
        self.training_runs: RunFactory = content_views.training_runs_in(settings.data_dir)
        self.crash: Exception | None = None  # what ended the app, for launch.run_app to report
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)  # tests fix the clock
        # keys, sessions, marks and the class folder's dues; on the app's clock, as it is now
        self.study = Study(course, store, lambda: self.now(), settings.shuffle_options)
        self.training_extra_installed: Callable[[], bool] = content_views.train_extra_installed
        store.on_problem = self._store_problem
        self.drop_box = DropBoxClient(self, self.study, self._store_problem)
        self.notices: list[str] = []  # every notice of this session, as shown
        self.tabs_pressed = 0  # focus moves the student made (open_item leaves them be)
        self.opens_started = 0  # the newest open_item wins: an older one still mounting stops
        self.leaving = Leaving(self, store, self.drop_box, self._remember_position)
        self.lesson_check = LessonBlocksCheck(self, course, store)
        self.save_course_cache: Callable[[], None] | None = None  # make_app's (course cache)
        self.css_cache = css_cache.attach(self.stylesheet, settings.data_dir)  # before parsing

    def get_driver_class(self) -> type[Driver]:
        """Textual's own driver, except that on a Unix terminal it reads pastes through
        PasteCap: a 1 MB paste costs the reader milliseconds, not seconds of CPU."""
        driver = super().get_driver_class()
        if driver.__module__ != "textual.drivers.linux_driver":  # Windows, or TEXTUAL_DRIVER
            return driver
        from tui_course.ui.paste_cap import CappedPasteDriver

        return CappedPasteDriver

    def get_default_screen(self) -> CourseScreen:
        """The course screen: the outline and the content, laid out for the width."""
        return CourseScreen(
            self.items,
            self._outline_state() or OutlineState({}, None),
            width=self.size.width,
            ascii_only=self.ascii_only,
            start_pending=self.start_item.quiz_pending,
            on_ready=self._start,
        )

    def _start(self) -> None:
        """Once the course screen is mounted: start-up's notices, the class, the start item."""
        # Focus before the first frame, styled with it: given after it, it restyled the outline
        # (:focus tints every row) and the first lesson's frame drew the outline again.
        self.main_screen.first_focus()
        start_up_notices(self, self.store.notice, self.course.problems)
        self.drop_box.join(self.settings.data_dir)
        if not self.is_headless:  # a terminal to lose (Pilot tests have none)
            from tui_course.runtime.hangup import watch

            watch(asyncio.get_running_loop(), self.leaving.leave_now)  # SIGTERM, SIGHUP, hangup
        # frozen before the start item opens: what it builds is freed as the student moves on
        self.main_screen.after_first_frame(startup_gc.freeze_start_up)
        if self.settings.open_id == REVIEW_ID:
            self.call_after_refresh(self.start_item.open_instead, self.open_review)
            self.call_after_refresh(self._after_start)
            return
        start = self.settings.open_id or self.store.get_setting(LAST_OPENED)
        item = (self.course.find(start) if start else None) or next(iter(self.items), None)
        if item is None:
            self.query_one(LessonView).show_message(
                f"No lessons or quizzes were found in {path_text(self.settings.content_dir)}."
            )
            self.call_after_refresh(self._after_start)
            return
        self.start_item.open(item, focus_content=self.settings.open_id is not None)

    @property
    def started(self) -> bool:
        """The start item has been opened (or could not be) and the footer released: what
        a caller waiting for the first screen (a test, a script) waits for."""
        return not self.start_item.opening

    def _after_start(self) -> None:
        """Once the first item is open: cyclic GC on again (startup_gc), the lessons'
        live blocks checked, the parsed course and CSS cached for the next start (work
        that would only delay the first screen)."""
        startup_gc.resume_after_start()
        self.lesson_check.start()
        save, self.save_course_cache = self.save_course_cache, None
        save_for_next_start(self, save, self.css_cache.save if self.css_cache.new else None)

    # opening things

    async def open_item(self, item_id: str, focus_content: bool = False) -> None:
        if item_id == REVIEW_ID:
            await self.open_review()
            return
        item = self.course.find(item_id)
        if item is None:
            return
        this_open = self.opens_started = self.opens_started + 1  # the newest open wins:

        def overtaken() -> bool:  # a click after a key on a busy server: the older one stops
            return this_open != self.opens_started

        session: QuizSession | None = None
        if isinstance(item, Quiz):
            keys = self.study.answer_keys([item])  # computed in a thread, if at all
            if not keys.done():
                await asyncio.wrap_future(keys)
            keys.result()  # what computing them raised, raised here
            if overtaken():
                return
            try:  # where the student stands in it is read from the store
                session = self.study.quiz_session(item)
            except ContentError as error:
                title = "This quiz cannot open"
                self.notify(str(error), title=title, severity="error", markup=False)
                return
            except StoreError as error:
                self._store_problem(f"The quiz cannot open just now. {error}")
                return
        self._remember_position()
        self.current = item
        tabs_before = self.tabs_pressed  # opening a lesson can take seconds on a busy server
        if self.store.get_setting(LAST_OPENED) != item.id:  # as a returning student left it
            self.store.set_setting(LAST_OPENED, item.id)
        self.query_one(Outline).select_id(item.id)
        switcher = self.query_one(ContentSwitcher)
        target: Widget
        if isinstance(item, Lesson):
            self.store.mark_lesson_opened(item.id)
            switcher.current = "lesson"
            saved = self.store.get_setting(f"position:{item.id}")
            await self.query_one(LessonView).show(item, float(saved) if saved else 0.0)
            if overtaken():
                return
            self.sub_title = one_line(item.title)
            target = self.query_one(LessonView)
        elif isinstance(item, Quiz):
            assert session is not None  # made above, before anything changed on screen
            quiz_view = await self._quiz_view()
            if overtaken():
                return
            switcher.current = "quiz"
            self.sub_title = f"Quiz: {one_line(item.title)}"
            await quiz_view.start(session)
            target = quiz_view
        else:
            runs, extra = self.training_runs, self.training_extra_installed
            target = await content_views.lab_view(
                self.main_screen, item, runs, extra, self.store, self.ascii_only
            )
            if overtaken():
                return
            switcher.current = target.id
            self.sub_title = one_line(item.title)
        # A quiz focuses its own answer box; and a Tab pressed while this opened wins.
        if focus_content and not isinstance(item, Quiz) and self.tabs_pressed == tabs_before:
            target.focus()

    async def _quiz_view(self) -> QuizView:
        """The one quiz view, for every quiz and the review (mounted on first use)."""
        return await content_views.quiz_view(self.main_screen, self.study, self.settings)

    async def open_review(self) -> None:
        """The review queue: due questions from every quiz, in one pass."""
        this_open = self.opens_started = self.opens_started + 1
        await asyncio.wrap_future(self.study.answer_keys())  # every quiz's, in a thread
        if this_open != self.opens_started:  # overtaken, as in open_item
            return
        try:
            session = self.study.review_session()
        except StoreError as error:
            self._store_problem(f"The review cannot open just now. {error}")
            return
        if session is None:
            self.notify("Nothing is due for review right now.", timeout=5)
            if self.current is None and self.items:  # `attn-tui review`: open something
                last = self.store.get_setting(LAST_OPENED)
                item = (self.course.find(last) if last else None) or self.items[0]
                await self.open_item(item.id, focus_content=True)
            return
        self._remember_position()
        self.current = None
        self.query_one(Outline).select_id(REVIEW_ID)
        quiz_view = await self._quiz_view()
        self.query_one(ContentSwitcher).current = "quiz"
        self.sub_title = "Review"
        await quiz_view.start(session)  # it focuses its own answer box

    def _remember_position(self) -> None:
        view = self.query_one(LessonView)
        if isinstance(self.current, Lesson) and view.lesson is not None:
            self.store.set_setting(f"position:{view.lesson.id}", str(int(view.scroll_y)))

    def refresh_outline(self) -> None:
        state = self._outline_state()
        if state is not None:  # else the marks shown stay as they were
            self.query_one(Outline).update_marks(state.marks, state.due)

    def _outline_state(self) -> OutlineState | None:
        """Marks and review count; None (and a notice) when the store cannot be read just
        now, e.g. a long lock."""
        try:
            return self.study.outline()
        except StoreError as error:
            self._store_problem(str(error))
        return None

    def _store_problem(self, message: str) -> None:
        """A save or read that failed: one line, and the student goes on."""
        self.notify(
            one_line(message), title="Progress", severity="warning", timeout=8, markup=False
        )

    @on(OptionList.OptionSelected, "#outline")
    async def _outline_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.main_screen.close_overlay(back_to_before=False)  # its content takes focus
            await self.open_item(event.option.id, focus_content=True)

    @on(LessonView.Finished)
    def _lesson_finished(self, event: LessonView.Finished) -> None:
        newly_read = self.study.lesson_read(event.lesson_id)
        self.refresh_outline()
        if newly_read:
            self.drop_box.submit(())  # the report's lessons count follows reading, not only quizzes

    def on_quiz_view_finished(self, event: QuizView.Finished) -> None:
        """A run ended, so a score in the outline may have changed. (The quiz's messages
        are caught by name: its module loads when a quiz first opens.)"""
        self.refresh_outline()
        self.drop_box.submit(self.study.sent_after(event.quiz_id))

    def on_quiz_view_saved(self) -> None:
        """A mark or the review count may have changed: drawn after the frame that shows
        the question the student waits for (a skip closes one and opens the next)."""
        self.call_after_refresh(self.refresh_outline)

    # actions

    async def _step(self, offset: int) -> None:
        start = self.start_item.item
        base = self.current.id if self.current else start.id if start else None
        if base is None:
            return
        ids = [item.id for item in self.items]
        index = ids.index(base) + offset
        if 0 <= index < len(ids):
            await self.open_item(ids[index], focus_content=True)
        else:
            self.notify(
                "That is the end of the course." if offset > 0 else "This is the first item.",
                markup=False,
            )

    async def action_next_item(self) -> None:
        await self._step(1)

    async def action_previous_item(self) -> None:
        await self._step(-1)

    # the outline: beside the content when wide, over it when narrow (CourseScreen)

    @property
    def main_screen(self) -> CourseScreen:
        """The course screen, also while help or the palette is on top of it."""
        screen = self.screen_stack[0]
        assert isinstance(screen, CourseScreen)
        return screen

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice goes to the line above the footer, as plain text (never markup):
        a toast in the corner would cover a quiz's hints and feedback."""
        del markup  # shown as text whatever the caller asked
        line = notice_line(message, title, severity)
        self.notices.append(line)
        for lines in self.main_screen.query(NoticeLines):  # also while help is open
            lines.add(line, timeout if timeout is not None else 8.0)

    def format_title(self, title: str, sub_title: str) -> Content:
        """The header's title; a hyphen instead of the em dash in ASCII mode."""
        if self.ascii_only and sub_title:
            return ascii_title(title, sub_title)
        return super().format_title(title, sub_title)

    def get_key_display(self, binding: Binding) -> str:
        """Key names in the footer; words instead of arrow glyphs in ASCII mode."""
        shown = super().get_key_display(binding)
        return ascii_key(binding.key, shown) if self.ascii_only else shown

    def action_focus_next(self) -> None:
        self.tabs_pressed += 1
        super().action_focus_next()

    def action_focus_previous(self) -> None:
        self.tabs_pressed += 1
        super().action_focus_previous()

    def on_resize(self, event: events.Resize) -> None:
        """The course screen hears of it even under help. The event's size, not self.size:
        this handler runs before App's own, which stores it."""
        if self.screen_stack:
            self.main_screen.resized(event.size.width)

    def action_help(self) -> None:
        from tui_course.ui.screens.help import HelpScreen, course_help

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(course_help([self, self.main_screen], self.focused))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        from tui_course.ui.palette import course_commands  # when the palette first opens

        yield from course_commands(self)
        yield from super().get_system_commands(screen)

    async def action_quit(self) -> None:
        await self.leaving.quit()

    def on_training_panel_finished(self, message: TrainingPanel.Finished) -> None:
        """Say so wherever the student is: training runs on while they read. (Caught by
        name: the panel's module loads when the training lab first opens.)"""
        from tui_course.render.training import finished_notice

        self.notify(finished_notice(message.record), title="Training lab", markup=False)

    async def on_event(self, event: events.Event) -> None:
        """Pasted text is cleaned before any box sees it: a paste can carry escape codes,
        which an answer or sentence box would draw straight to the terminal. Keys and clicks
        after q do nothing: one could open a view in a screen being taken down."""
        if isinstance(event, events.InputEvent) and self.leaving.going:
            return
        if isinstance(event, events.Paste) and not event.is_forwarded:
            cleaned = clean(event.text)
            if cleaned != event.text:
                event = events.Paste(cleaned)
        await super().on_event(event)

    def _handle_exception(self, error: Exception) -> None:
        """An unexpected error still ends the app (return code 1), but without Textual's
        traceback with locals over the terminal: launch.run_app logs it and says one line."""
        self.crash = error
        super()._handle_exception(error)
        clear_exit_renderables(self)

    def on_unmount(self) -> None:
        self.lesson_check.store_closed = True
        self.store.close()


def make_app(settings: Settings) -> CourseApp:
    """Load the course and open the progress store for `settings`; raises StoreError only
    for a symlinked data folder or file (any other store problem gives a notice instead)."""
    from tui_course.content.course_cache import CACHE_NAME, cached_course

    # The store first: it refuses a symlinked data folder, where the course cache lives.
    store = ProgressStore(settings.data_dir, interactive=True)
    # Lessons' live blocks are found after the first frame (lesson_check.py).
    course, save_cache = cached_course(settings.content_dir, settings.data_dir / CACHE_NAME)
    app = CourseApp(course, store, settings)
    app.save_course_cache = save_cache
    return app
