"""The course app and its one factory, used by the CLI, the tests and the benchmarks."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Header, Input, OptionList, Static

from tui_course.content.errors import ContentError
from tui_course.content.models import REVIEW_ID, Course, Item, Lab, Lesson, Quiz
from tui_course.progress.outline import LAST_OPENED, LESSON_BLOCKS_CHECKED
from tui_course.progress.store import ProgressStore, StoreError
from tui_course.safe_text import clean, markup_line, one_line, path_text
from tui_course.study import OutlineState, Study
from tui_course.terminal import locale_is_utf8
from tui_course.ui.messages import LessonFinished, QuizFinished, QuizSaved, TrainingFinished
from tui_course.ui.textual_compat import clear_exit_renderables
from tui_course.ui.widgets.footer import CourseFooter
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.notices import SEVERITY_WORDS, NoticeLines
from tui_course.ui.widgets.outline import MARKS_LEGEND, Outline

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.notifications import SeverityLevel

    from tui_course.classroom.link import ClassLink
    from tui_course.classroom.submission import SubmitOutcome
    from tui_course.content.session import QuizSession
    from tui_course.training.options import TrainOptions
    from tui_course.training.runner import TrainingRun
    from tui_course.ui.widgets.quiz_view import QuizView
    from tui_course.ui.widgets.training_panel import RunFactory, TrainingPanel

# Footer key names when arrows (⏎, →) cannot be drawn.
ASCII_KEYS = {"enter": "Enter", "right": "Right", "left": "Left", "up": "Up", "down": "Down"}
# Below this many columns the outline is an overlay that o (or Esc) opens over the lesson.
WIDE_COLUMNS = 100
TINY_COLUMNS = 60
QUIT_CONFIRM_SECONDS = 5.0  # q during training asks; a second q within this quits


@dataclass(frozen=True)
class Settings:
    content_dir: Path
    data_dir: Path
    open_id: str | None = None
    shuffle_options: bool = True  # each student sees quiz options in an order of their own


def _train_extra_installed() -> bool:
    """Whether Keras can run here; tests with a fake training child swap it (see CourseApp)."""
    from tui_course.training.runner import train_extra_installed

    return train_extra_installed()


class CourseApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "attn-tui"
    # Screen classes: below WIDE_COLUMNS ("-narrow", "-tiny") the outline lays over the
    # content instead of beside it; "-tiny" also stacks forms.
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (TINY_COLUMNS, "-narrow"), (WIDE_COLUMNS, "-wide")]
    # on_mount picks the first focus: the outline only where it shows (a hidden outline
    # holding focus made the first Tab vanish at 80 columns).
    AUTO_FOCUS = None
    SUB_TITLE = "Transformers and self-attention"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        # Shown where q types a letter (a text box); elsewhere the footer shows q (footer.py).
        Binding("ctrl+q", "quit", "Quit"),
        Binding("f1,question_mark", "help", "Help"),
        Binding(
            "escape",
            "back_out",
            "Back",
            show=False,
            tooltip="Back: leave the answer box first, then go to the outline",
        ),
        Binding("n", "next_item", "Next item", tooltip="Next lesson, lab or quiz in the outline"),
        Binding(
            "p",
            "previous_item",
            "Previous item",
            show=False,
            tooltip="Previous lesson, lab or quiz in the outline",
        ),
        # Not ctrl+b: that is the tmux prefix, and lab servers are used through tmux.
        Binding(
            "o",
            "toggle_outline",
            "Outline",
            tooltip="Show or hide the outline (over the lesson when the terminal is narrow)",
        ),
        Binding(
            "tab", "focus_next", "Next pane", show=False, tooltip="Move focus to the next pane"
        ),
        Binding(
            "shift+tab",
            "focus_previous",
            "Previous pane",
            show=False,
            tooltip="Move focus to the previous pane",
        ),
    ]

    def __init__(self, course: Course, store: ProgressStore, settings: Settings) -> None:
        super().__init__()
        self.ascii_only = not locale_is_utf8()  # LANG=C, or --ascii (ATTN_TUI_ASCII=1)
        if self.ascii_only or "tui_course.ui.ascii_theme" in sys.modules:
            # Imported only when needed (it loads Markdown); switched back for a later app.
            from tui_course.ui.ascii_theme import use_ascii_glyphs

            use_ascii_glyphs(self.ascii_only)
        if self.ascii_only:
            self.add_class("-ascii")
        self.course = course
        self.store = store
        self.settings = settings
        self.items = course.outline()
        self.current: Item | None = None
        self._start_id: str | None = None  # what opens after the first frame
        self._start_opening = True  # until _open_start has opened it (or failed to)
        self.training_runs: RunFactory = self._training_run
        self.crash: Exception | None = None  # what ended the app, for launch.run_app to report
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)  # tests fix the clock
        # keys, sessions, marks and the class folder's dues; on the app's clock, as it is now
        self.study = Study(course, store, lambda: self.now(), settings.shuffle_options)
        self.training_extra_installed: Callable[[], bool] = _train_extra_installed
        store.on_problem = self._store_problem
        self.class_link: ClassLink | None = None
        self.notices: list[str] = []  # every notice of this session, as shown
        self.tabs_pressed = 0  # focus moves the student made (open_item leaves them be)
        # What had focus when the outline overlay opened: closing it goes back there.
        self._focus_before_overlay: Widget | None = None
        self._quit_armed_until = 0.0  # a second q before this (monotonic) quits mid-training
        self.left_with: int | None = None  # the exit status when a signal or hangup ended it
        self._store_closed = False  # on_unmount closed it: a late worker's memo is dropped
        # make_app's: writes the parsed course to the data folder, after the first screen
        self.save_course_cache: Callable[[], None] | None = None

    def get_driver_class(self) -> type[Driver]:
        """Textual's own driver, except that on a Unix terminal it reads pastes through
        PasteCap: a 1 MB paste costs the reader milliseconds, not seconds of CPU."""
        driver = super().get_driver_class()
        if driver.__module__ != "textual.drivers.linux_driver":  # Windows, or TEXTUAL_DRIVER
            return driver
        from tui_course.ui.paste_cap import CappedPasteDriver

        return CappedPasteDriver

    def _training_run(self, options: TrainOptions) -> TrainingRun:
        """Tests swap this attribute for a fake child; the real one logs under the data dir."""
        from tui_course.training.runner import TrainingRun

        return TrainingRun.for_options(options, self.settings.data_dir)

    def compose(self) -> ComposeResult:
        yield Header(icon="*" if self.ascii_only else None)
        with Horizontal(id="main"):
            state = self._outline_state() or OutlineState({}, None)
            yield Outline(self.items, state.marks, state.due, id="outline")
            with ContentSwitcher(initial="lesson", id="content"):
                yield LessonView(id="lesson")
        yield NoticeLines(id="notices")
        yield CourseFooter()

    def get_default_screen(self) -> Screen:  # type: ignore[type-arg]
        """The main screen, born with its breakpoint class: Textual sets it on the first
        resize, after the first frame, which would draw (and style) the wrong layout once."""
        width = self.size.width
        names = ("-tiny", "-narrow", "-wide")
        index = 0 if width < TINY_COLUMNS else 1 if width < WIDE_COLUMNS else 2
        return Screen(id="_default", classes=names[index])

    def on_mount(self) -> None:
        # Giving focus restyles every node (Textual's own CSS has :focus-within rules), so
        # it waits for the first frame: the outline draws, and takes keys a frame later.
        self.call_after_refresh(self._first_focus)
        if self.store.notice:
            self.notify(
                one_line(self.store.notice),
                title="Progress",
                severity="warning",
                timeout=15,
                markup=False,
            )
        if self.course.problems:
            count = len(self.course.problems)
            first = str(self.course.problems[0])
            more = f" (and {count - 1} more; run attn-tui validate)" if count > 1 else ""
            self.notify(
                first + more,
                title="Content problems",
                severity="warning",
                timeout=15,
                markup=False,
            )
        self._join_class()
        if not self.is_headless:  # a terminal to lose (Pilot tests have none)
            from tui_course.hangup import watch

            watch(asyncio.get_running_loop(), self._leave_now)  # SIGTERM, SIGHUP, hangup
        # What start-up built lives as long as the app: frozen out of cyclic GC after the
        # first frame, later full collections do not walk it all again. (Only that: what
        # the first item builds is freed when the student moves on, as any later widget.)
        self.call_after_refresh(gc.freeze)
        if self.settings.open_id == REVIEW_ID:
            self.call_after_refresh(self.open_review)
            self.call_after_refresh(self._after_start)
            return
        start = self.settings.open_id or self.store.get_setting(LAST_OPENED)
        item = self.course.find(start) if start else None
        if item is None and self.items:
            item = self.items[0]
        if item is None:
            self.query_one(LessonView).show_message(
                f"No lessons or quizzes were found in {path_text(self.settings.content_dir)}."
            )
            self.call_after_refresh(self._after_start)
            return
        # The outline shows in the first frame; the lesson (Markdown, maybe NumPy) right after.
        # --open means "take me there": the content gets the keyboard.
        self._start_id = item.id
        if isinstance(item, Quiz):  # its keys, not those of the pane before it, come first
            self.query_one(CourseFooter).hold()
            # Before the first frame: a quiz's first screen is text (no Markdown, no NumPy
            # unless its keys are computed), and one frame costs less than two.
            self.call_next(self._open_start, self.settings.open_id is not None)
            return
        self.call_after_refresh(self._open_start, self.settings.open_id is not None)

    def _first_focus(self) -> None:
        if self.focused is None and not self._start_quiz_pending():
            (self.query_one(LessonView) if self.narrow else self.query_one(Outline)).focus()

    @property
    def started(self) -> bool:
        """The start item has been opened (or could not be) and the footer released: what
        a caller waiting for the first screen (a test, a script) waits for."""
        return not self._start_opening

    def _start_quiz_pending(self) -> bool:
        """The start item is a quiz not open yet. It focuses its own answer box when it
        opens: focusing another pane before would restyle every node and rebuild the
        footer once more, on a returning student's way to the summary."""
        start = self.course.find(self._start_id) if self._start_id else None
        return self._start_opening and isinstance(start, Quiz)

    def _check_lesson_blocks(self) -> None:
        """Find every lesson's live blocks in a thread, after the first frame (markdown-it is
        not start-up work), and say which lessons have a broken one. Lessons that passed
        in an earlier session, unchanged, are not parsed again (a returning student's
        start is as lean as a new one's)."""
        from tui_course.content.models import lessons_fingerprint

        fingerprint = lessons_fingerprint(self.course.lessons)
        if self.store.get_setting(LESSON_BLOCKS_CHECKED) == fingerprint:
            return

        def check() -> None:
            problems = []
            for lesson in self.course.lessons:
                try:
                    _ = lesson.segments
                except ContentError as error:
                    problems.append(str(error))
            if problems:
                more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
                message = f"{problems[0]}{more}; run attn-tui validate"
                self.call_from_thread(
                    self.notify, message, title="Content problems", severity="warning", timeout=15
                )
            else:
                self.call_from_thread(self._lesson_blocks_passed, fingerprint)

        self.run_worker(check, thread=True, group="lesson-blocks", exit_on_error=False)

    def _lesson_blocks_passed(self, fingerprint: str) -> None:
        if self._store_closed:  # the check ended as the app did: nothing to keep it in
            return
        with contextlib.suppress(StoreError):  # only a memo: the next start checks again
            self.store.set_setting(LESSON_BLOCKS_CHECKED, fingerprint)

    def _after_start(self) -> None:
        """Once the first item is open: cyclic GC on again (launch.run_app paused it; what
        start-up built stays alive, so collecting it before was wasted), the lessons'
        live blocks checked and the parsed course cached for the next start (work that
        would only delay the first screen)."""
        # Frozen first: a quiz opens before the first frame, ahead of on_mount's freeze, and
        # GC turned on with start-up's objects unfrozen walks all of them in its first passes.
        gc.freeze()
        gc.enable()
        self._check_lesson_blocks()
        if self.save_course_cache is not None:
            save, self.save_course_cache = self.save_course_cache, None
            self.run_worker(save, thread=True, group="course-cache", exit_on_error=False)

    async def _open_start(self, focus_content: bool) -> None:
        """Open the start item, unless a key pressed in the first frame already opened another."""
        try:
            if self.current is None and self._start_id is not None:
                await self.open_item(self._start_id, focus_content)
        finally:
            self._start_opening = False
            self.query_one(CourseFooter).release()
            # After the frame that shows it: a quiz opens before the first frame, and what
            # _after_start does (the lessons' digest, the course cache) need not delay it.
            self.call_after_refresh(self._after_start)
        if self.current is None:  # the quiz could not open: the usual first focus
            self._first_focus()

    # opening things

    async def open_item(self, item_id: str, focus_content: bool = False) -> None:
        if item_id == REVIEW_ID:
            await self.open_review()
            return
        item = self.course.find(item_id)
        if item is None:
            return
        session: QuizSession | None = None
        if isinstance(item, Quiz):
            keys = self.study.answer_keys([item])  # computed in a thread, if at all
            if not keys.done():
                await asyncio.wrap_future(keys)
            keys.result()  # what computing them raised, raised here
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
            self.sub_title = one_line(item.title)
            target = self.query_one(LessonView)
        elif isinstance(item, Quiz):
            assert session is not None  # made above, before anything changed on screen
            quiz_view = await self._quiz_view()
            switcher.current = "quiz"
            self.sub_title = f"Quiz: {one_line(item.title)}"
            await quiz_view.start(session)
            target = quiz_view
        else:
            target = await self._lab_view(item)
            switcher.current = target.id
            self.sub_title = one_line(item.title)
        # A quiz focuses its own answer box; and a Tab pressed while this opened wins.
        if focus_content and not isinstance(item, Quiz) and self.tabs_pressed == tabs_before:
            target.focus()

    async def _lab_view(self, lab: Lab) -> Widget:
        """A lab's screen, mounted the first time it is opened and kept (with its state)."""
        from tui_course.ui.widgets.labs import make_lab

        found = self.query(f"#lab-{lab.id}")
        if found:
            return found.first()
        view = make_lab(
            lab,
            self.training_runs,
            self.training_extra_installed,
            store=self.store,
            id=f"lab-{lab.id}",
        )
        await self.query_one(ContentSwitcher).mount(view)
        if self.ascii_only:  # a Select draws its arrows as text, not from a glyph table
            for arrow in view.query(".down-arrow").results(Static):
                arrow.update("v")
            for arrow in view.query(".up-arrow").results(Static):
                arrow.update("^")
        return view

    async def _quiz_view(self) -> QuizView:
        """Mounted on first use: most sessions start on a lesson, and start-up is faster."""
        # Imported on first use too: the quiz view and the recorder are not start-up work.
        from tui_course.ui.widgets.quiz_view import QuizView

        found = self.query(QuizView)
        if found:
            return found.first()
        from tui_course.ui.widgets.code_exercises import CodeExercises

        exercises = CodeExercises(self.settings.data_dir, self.settings.content_dir)
        view = QuizView(self.study.recorder(), exercises=exercises, id="quiz")
        await self.query_one(ContentSwitcher).mount(view)
        return view

    async def open_review(self) -> None:
        """The review queue: due questions from every quiz, in one pass."""
        await asyncio.wrap_future(self.study.answer_keys())  # every quiz's, in a thread
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
            self._focus_before_overlay = None  # a new item opens: its content takes focus
            self._close_overlay()
            await self.open_item(event.option.id, focus_content=True)

    @on(LessonFinished)
    def _lesson_finished(self, event: LessonFinished) -> None:
        newly_read = self.study.lesson_read(event.lesson_id)
        self.refresh_outline()
        if newly_read:
            self._submit(())  # the report's lessons count follows reading, not only quizzes

    @on(QuizFinished)
    def _quiz_finished(self, event: QuizFinished) -> None:
        """A run ended, so a score in the outline may have changed."""
        self.refresh_outline()
        self._submit(self.study.sent_after(event.quiz_id))

    # the class drop-box (only when the site config names a class folder)

    def _join_class(self) -> None:
        from tui_course.classroom.link import ClassLink

        self.class_link, problem = ClassLink.from_site(self.settings.data_dir)
        if problem:
            self.notify(problem, title="Class", severity="warning", timeout=15, markup=False)
        if self.class_link is not None and self.class_link.pending():
            from tui_course.classroom.link import PENDING_LABEL

            self.query_one(Outline).show_notice(PENDING_LABEL)  # until the retry says otherwise
            self._submit(None)

    def _submit(self, quiz_ids: Sequence[str] | None) -> None:
        """Send the lessons read and `quiz_ids` (None: only what is pending) in a thread;
        a failure only leaves "submission pending" under the outline."""
        link = self.class_link
        if link is None:
            return
        payload = None
        if quiz_ids is not None:  # quizzes owed from a busy moment go with these
            payload = self.study.submission(link, quiz_ids)
            if payload is None:  # the summary is read from the store; it may be busy
                self._store_problem(
                    "Your results were not sent to the class folder: your progress could not"
                    " be read just now. They go with the next quiz you finish, or run"
                    " `attn-tui submit`."
                )
                return

        def send() -> None:
            outcome = link.send(payload)
            self.call_from_thread(self._show_submission, outcome)

        self.run_worker(send, thread=True, group="submit", exit_on_error=False)

    def _submit_part_way(self, wait: float = 2.0) -> None:
        """On quitting with a quiz left part-way, send every quiz: otherwise the report
        never sees "in progress" from a student whose login is the app (ForceCommand)."""
        link = self.class_link
        if link is None:
            return
        try:
            payload = self.study.part_way(link)
        except StoreError:
            return
        if payload is not None:
            link.send_before_exit(payload, wait=wait)

    def _show_submission(self, outcome: SubmitOutcome) -> None:
        from tui_course.classroom.link import PENDING_LABEL

        self.query_one(Outline).show_notice(PENDING_LABEL if outcome.pending else "")

    @on(QuizSaved)
    def _quiz_saved(self) -> None:
        """A question closed, so a mark or the review count may have changed: read and
        drawn after the next frame, which shows the question the student waits for
        (a skip closes one and opens the next with the same key)."""
        self.call_after_refresh(self.refresh_outline)

    # actions

    async def _step(self, offset: int) -> None:
        base = self.current.id if self.current is not None else self._start_id
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

    def action_back_out(self) -> None:
        focused = self.focused
        if isinstance(focused, Input):
            # First Esc leaves a text box for the view around it, so its keys work again.
            owner = next(
                (
                    node
                    for node in focused.ancestors
                    if isinstance(node, Widget) and node.can_focus and node is not focused
                ),
                None,
            )
            if owner is not None:
                owner.focus()
                return
        outline = self.query_one(Outline)
        if self.narrow and self.overlay_open and outline.has_focus:
            self._close_overlay()  # a second Esc puts the outline away again
            return
        if self.narrow:
            self._open_overlay()
        else:
            self.main_screen.remove_class("-outline-hidden")
        outline.focus()

    # the outline: beside the content when wide, over it when narrow

    @property
    def main_screen(self) -> Screen:  # type: ignore[type-arg]
        """The outline's screen, also while help or the palette is on top of it."""
        return self.screen_stack[0]

    @property
    def narrow(self) -> bool:
        return self.size.width < WIDE_COLUMNS

    @property
    def overlay_open(self) -> bool:
        # Focus events still arrive while the app shuts down, after its screens are gone.
        return bool(self.screen_stack) and self.main_screen.has_class("-outline-open")

    def action_toggle_outline(self) -> None:
        if self.narrow:
            if self.overlay_open:
                self._close_overlay()
            else:
                self._open_overlay()
                self.query_one(Outline).focus()
            return
        self.main_screen.toggle_class("-outline-hidden")
        self._focus_content_if_outline_hidden()

    def _open_overlay(self) -> None:
        if not self.overlay_open:
            focused = self.focused
            self._focus_before_overlay = None if isinstance(focused, Outline) else focused
        self.main_screen.add_class("-outline-open")

    def _close_overlay(self) -> None:
        if self.overlay_open:
            self.main_screen.remove_class("-outline-open")
            before, self._focus_before_overlay = self._focus_before_overlay, None
            if before is not None and before.is_attached and self.query_one(Outline).has_focus:
                before.focus()  # back to the figure or box the student was in
                return
            self._focus_content_if_outline_hidden()

    def _focus_content_if_outline_hidden(self) -> None:
        """Hidden widgets keep focus in Textual; give it to the content instead."""
        outline = self.query_one(Outline)
        if self.narrow:
            hidden = not self.overlay_open
        else:
            hidden = self.main_screen.has_class("-outline-hidden")
        nothing_focused = self.focused is None and not self._start_quiz_pending()
        if hidden and (outline.has_focus or nothing_focused):
            switcher = self.query_one(ContentSwitcher)
            current = switcher.query_one(f"#{switcher.current}") if switcher.current else None
            if isinstance(current, Widget):
                current.focus()  # a lab passes focus on to its figure or text box

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
        # "Quit? Training is..." rather than "Quit?: Training is...".
        joined = f"{title} " if title.endswith(("?", "!", ":", ".")) else f"{title}: "
        prefix = f"{SEVERITY_WORDS.get(severity, '')}{joined if title else ''}"
        line = one_line(prefix + message)
        self.notices.append(line)
        for lines in self.main_screen.query(NoticeLines):  # also while help is open
            lines.add(line, timeout if timeout is not None else 8.0)

    def format_title(self, title: str, sub_title: str) -> Content:
        """The header's title; a hyphen instead of the em dash in ASCII mode."""
        if not (self.ascii_only and sub_title):
            return super().format_title(title, sub_title)
        return Content.assemble(Content(title), (" - ", "dim"), Content(sub_title).stylize("dim"))

    def get_key_display(self, binding: Binding) -> str:
        """Key names in the footer; words instead of arrow glyphs in ASCII mode."""
        shown = super().get_key_display(binding)
        if self.ascii_only and not shown.isascii():
            return ASCII_KEYS.get(binding.key, binding.key)
        return shown

    def action_focus_next(self) -> None:
        self.tabs_pressed += 1
        super().action_focus_next()

    def action_focus_previous(self) -> None:
        self.tabs_pressed += 1
        super().action_focus_previous()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A steady text cursor: a blinking one redraws twice a second while nobody types."""
        if isinstance(event.widget, Input):
            event.widget.cursor_blink = False
        # Focus moving from the overlay into the content (n, p, Tab, a click) puts the
        # overlay away: left open, it would cover the very place that has the keys.
        if (
            self.overlay_open
            and event.widget.screen is self.main_screen
            and not isinstance(event.widget, Outline)
        ):
            self.main_screen.remove_class("-outline-open")

    def on_resize(self, event: events.Resize) -> None:
        """Crossing the breakpoint may hide the focused outline: move focus to the content.
        Widening puts an open overlay away (the outline now sits beside the content).
        The event's size, not self.size: this handler runs before App's own, which stores it."""
        if event.size.width >= WIDE_COLUMNS:
            self.main_screen.remove_class("-outline-open")
        self.call_after_refresh(self._focus_content_if_outline_hidden)

    def action_help(self) -> None:
        from tui_course.shell_access import editor_available
        from tui_course.ui.screens.help import HelpScreen, focused_first, help_sections
        from tui_course.ui.widgets.attention_view import AttentionView
        from tui_course.ui.widgets.code_exercise import CodeExerciseView
        from tui_course.ui.widgets.listing_view import ListingView
        from tui_course.ui.widgets.pe_view import PEView
        from tui_course.ui.widgets.quiz_view import QuizView
        from tui_course.ui.widgets.real_model_view import RealModelView
        from tui_course.ui.widgets.training_panel import TrainingPanel

        if isinstance(self.screen, HelpScreen):
            return
        panes: list[tuple[str, type[DOMNode]]] = [
            ("Everywhere", CourseApp),
            ("Outline", Outline),
            ("Lesson", LessonView),
            ("Quiz", QuizView),
            ("Code question (the editor: ctrl and F keys work while you type)", CodeExerciseView),
            ("Runnable listing (in lessons: Tab to it)", ListingView),
            ("Attention figure (in lessons and the attention lab)", AttentionView),
            ("Positional-encoding figure (in lessons and the PE lab)", PEView),
            ("Real-model lab", RealModelView),
            ("Training lab", TrainingPanel),
        ]
        sections = focused_first(panes, self.focused)
        other_keys = [
            ("Up / Down", "Move in the outline, scroll a lesson, move between options"),
            ("Enter", "Open the highlighted outline item"),
            ("PgUp / PgDn", "Scroll a page"),
            ("Left / Right", "Scroll a figure wider than the lesson (Tab to it first)"),
            ("ctrl+p", "Command palette: open any lesson or quiz by name"),
        ]
        footnote = (
            "While typing (an answer, a sentence), letters go into the box: press Esc once "
            "to leave it, then the keys above work. Tab moves into a lesson's live figure. "
            "Below 100 columns the outline opens over the lesson (o or Esc). "
            "The mouse works too: click outline items, quiz options and heatmap rows."
        )
        # ctrl+o opens $EDITOR only where the student has a shell anyway: listed only there
        hidden = frozenset() if editor_available() else frozenset({"external_editor"})
        self.push_screen(
            HelpScreen(
                help_sections(
                    sections,
                    [("Other keys", other_keys), ("Outline marks", list(MARKS_LEGEND))],
                    hidden,
                ),
                footnote,
            )
        )

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        for item in self.items:
            if isinstance(item, Lesson):
                title, help_line = (
                    f"Lesson {item.order}: {item.title}",
                    item.summary or "Open lesson",
                )
            elif isinstance(item, Quiz):
                title, help_line = f"Quiz: {item.title}", f"{len(item.questions)} questions"
            else:
                title, help_line = f"Lab: {item.title}", item.summary

            async def open_it(item_id: str = item.id) -> None:
                await self.open_item(item_id, focus_content=True)

            # Palette titles and help are parsed as markup: content must stay text.
            yield SystemCommand(markup_line(title), markup_line(help_line), open_it)
        yield SystemCommand("Next item", "Open the next lesson, lab or quiz", self.action_next_item)
        yield SystemCommand(
            "Previous item", "Open the previous lesson, lab or quiz", self.action_previous_item
        )
        yield SystemCommand("Review", "Go through the questions due for review", self.open_review)
        yield SystemCommand("Help: keys", "Show every key", self.action_help)
        yield SystemCommand("Doctor", "Check this account, terminal and class", self._doctor)
        yield SystemCommand(
            "Toggle outline", "Hide or show the course outline", self.action_toggle_outline
        )
        yield from super().get_system_commands(screen)

    async def _doctor(self) -> None:
        from tui_course.ui.screens.doctor import show_doctor

        await show_doctor(self, self.settings.data_dir)

    async def action_quit(self) -> None:
        panels = self._training_panels()
        running = [panel for panel in panels if panel.running]
        if running and time.monotonic() > self._quit_armed_until:
            # A stray q (meant for a box that lost focus) must not throw away a long run.
            self._quit_armed_until = time.monotonic() + QUIT_CONFIRM_SECONDS
            self.notify(
                f"Training is still running. Press q again within {QUIT_CONFIRM_SECONDS:.0f} s"
                " to stop it and quit.",
                title="Quit?",
                severity="warning",
                timeout=QUIT_CONFIRM_SECONDS,
                markup=False,
            )
            return
        self._remember_position()
        for panel in panels:
            await panel.stop()
        self._submit_part_way()
        self.exit()

    def _leave_now(self, why: str, status: int) -> None:
        """The terminal went away or we were told to stop: save as q does, without asking,
        and go (hangup.watch ends the process if this takes over a second)."""
        self.left_with = status  # launch.run_app ends the process with it
        self.call_next(self._leave, terminal_gone=why != "SIGTERM")

    async def _leave(self, terminal_gone: bool) -> None:
        self._remember_position()
        for panel in self._training_panels():
            await panel.stop()
        self._submit_part_way(wait=0.3)  # kept in pending/ first; the rest goes next start
        if terminal_gone:  # nothing left to restore on a terminal that is not there
            from tui_course.hangup import end_process

            self.store.close()
            end_process(self.left_with or 0)
        self.exit()

    def _training_panels(self) -> list[TrainingPanel]:
        """The training lab's panel, if it was ever opened (else its module is not loaded)."""
        if "tui_course.ui.widgets.training_panel" not in sys.modules:
            return []
        from tui_course.ui.widgets.training_panel import TrainingPanel

        return list(self.query(TrainingPanel))

    @on(TrainingFinished)
    def _training_finished(self, message: TrainingFinished) -> None:
        """Say so wherever the student is: training runs on while they read."""
        from tui_course.render.training import finished_notice

        self.notify(finished_notice(message.record), title="Training lab", markup=False)

    async def on_event(self, event: events.Event) -> None:
        """Pasted text is cleaned before any box sees it: a paste can carry escape codes,
        which an answer or sentence box would draw straight to the terminal."""
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
        self._store_closed = True
        self.store.close()


def make_app(settings: Settings) -> CourseApp:
    """Load the course and open the progress store for `settings`; raises StoreError only
    for a symlinked data folder or file (any other store problem gives a notice instead)."""
    from tui_course.content.course_cache import CACHE_NAME, cached_course

    # The store first: it refuses a symlinked data folder, where the course cache lives.
    store = ProgressStore(settings.data_dir, interactive=True)
    # Lessons' live blocks are found after the first frame (check_lesson_blocks).
    course, save_cache = cached_course(settings.content_dir, settings.data_dir / CACHE_NAME)
    app = CourseApp(course, store, settings)
    app.save_course_cache = save_cache
    return app
