"""The whole course as a conversation: the same items, store, scores and drop-box as the
app, through the same layers (content, progress, classroom, render), in lines."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from tui_course.content.errors import ContentError
from tui_course.content.models import REVIEW_ID, Course, Item, Lab, Lesson, Quiz
from tui_course.content.segments import BlockSegment, ListingSegment, MarkdownSegment
from tui_course.plain.console import Command, Console, Gone
from tui_course.plain.markdown import markdown_lines
from tui_course.progress.outline import LAST_OPENED, review_due
from tui_course.progress.store import ProgressStore, StoreError
from tui_course.study import Study

if TYPE_CHECKING:
    from tui_course.classroom.link import ClassLink
    from tui_course.classroom.submission import SubmitOutcome
    from tui_course.content.session import QuizSession
    from tui_course.training.options import TrainOptions
    from tui_course.training.runner import TrainingRun

# Words that work at every prompt, and what they do.
COURSE_WORDS = {
    "n": "next",
    "next": "next",
    "p": "previous",
    "previous": "previous",
    "l": "list",
    "list": "list",
    "q": "quit",
    "quit": "quit",
    "?": "help",
    "help": "help",
    "review": "review",
    "go": "go",
    "grids": "grids",
}
GRIDS_SETTING = "plain_grids"  # "off": lesson figures as words only (a listener's choice)
COURSE_HELP = (
    "Everywhere: n next item, p previous item, l list of items, go NUMBER (or go ID) "
    "to open one, review for the questions due again, grids to show a lesson's figures "
    "as words only (or again as grids), q quit, ? this help. "
    "Each line you type ends with Enter. Your answers are saved as you give them."
)
SUBMIT_WAIT = 5.0  # seconds a finished quiz's summary may take to reach the drop-box
LEAVING_WAIT = 0.5  # on a hangup or SIGTERM: the rest goes at the next start

_MARK = re.compile(r"^(\[.\])\s*(\d+/\d+)?")
_MARK_WORDS = {"[ ]": "not started", "[~]": "in progress", "[=]": "finished", "[x]": "done"}


def mark_words(item: Item, mark: str) -> str:
    """An outline mark said in words ('[=] 2/3' -> 'finished, first try 2 of 3')."""
    found = _MARK.match(mark.strip())
    box, score = (found.group(1), found.group(2) or "") if found else ("", "")
    if isinstance(item, Lesson):
        return "read" if box == "[x]" else "not read yet"
    if isinstance(item, Lab) or not box:
        return ""
    words = _MARK_WORDS.get(box, box)
    if box == "[x]":
        words = "finished, all mastered"
    if score:
        done, _, total = score.partition("/")
        if box == "[~]":
            words += f", {done} of {total} answered"
        else:
            words += f", first try {done} of {total}"
    return words


def item_title(item: Item) -> str:
    if isinstance(item, Lesson):
        return f"Lesson {item.order}: {item.title}"
    if isinstance(item, Quiz):
        return f"Quiz: {item.title}"
    return f"Lab: {item.title}"


class PlainCourse:
    def __init__(
        self,
        course: Course,
        store: ProgressStore,
        console: Console,
        data_dir: Path,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        shuffle_options: bool = True,
    ) -> None:
        self.course = course
        self.store = store
        self.console = console
        self.data_dir = data_dir
        self.now = now
        # the app's keys, sessions, marks and class-folder rules (shuffle as its Settings)
        self.study = Study(course, store, now, shuffle_options)
        self.items = course.outline()
        self.index = 0
        self.class_link: ClassLink | None = None
        self.training_runs: Callable[[TrainOptions], TrainingRun] = self._training_run
        self.training_extra_installed: Callable[[], bool] = _train_extra_installed
        store.on_problem = lambda message: self.console.say(f"Progress: {message}")
        console.help_text = COURSE_HELP
        console.inline_words = {
            "l": self.say_list,
            "list": self.say_list,
            "grids": self.toggle_grids,
        }
        try:
            self.grids = store.get_setting(GRIDS_SETTING) != "off"
        except StoreError:
            self.grids = True

    def _training_run(self, options: TrainOptions) -> TrainingRun:
        from tui_course.training.runner import TrainingRun

        return TrainingRun.for_options(options, self.data_dir)

    # the conversation

    def run(self, open_id: str | None) -> int:
        """Until q, the end of input, or a hangup; every answer is stored as it is given."""
        try:
            return self._run(open_id)
        except Gone as gone:
            self._leaving()
            return gone.code
        except KeyboardInterrupt:
            self._leaving()
            return 130

    def _run(self, open_id: str | None) -> int:
        say = self.console.say
        say("attn-tui, plain mode: the course as lines of text.", "heading")
        for problem in self.course.problems[:3]:
            say(f"Content problem: {problem}")
        if self.store.notice:
            say(f"Progress: {self.store.notice}")
        self._join_class()
        if not self.items:
            say("No lessons or quizzes were found.")
            return 1
        say(f"{len(self.items)} items. {COURSE_HELP}")
        start = open_id or self.store.get_setting(LAST_OPENED)
        action = "open"
        if start == REVIEW_ID:
            action = "start review"
            last = self.course.find(self.store.get_setting(LAST_OPENED) or "")
            self.index = self.items.index(last) if last in self.items else 0
        else:
            found = self.course.find(start) if start else None
            self.index = self.items.index(found) if found in self.items else 0
            if start and not open_id:
                say(f"Welcome back: you were at {item_title(self.items[self.index])}.")
        while True:
            try:
                if action in ("review", "start review"):
                    # `attn-tui review` with nothing due opens where the student was
                    due = self.review()
                    action = "menu" if due or action == "review" else "open"
                elif action == "open":
                    self.open_item(self.items[self.index])
                    action = "menu"
                else:
                    self.after_item()
                    action = "open"
            except Command as command:
                action = self.obey(command)
            if action == "quit":
                self._leaving(wait=2.0)
                say("Bye. Your progress is saved.")
                return 0

    def obey(self, command: Command) -> str:
        """What a course-wide word leads to: 'open' the current item, the 'menu' after
        an item, 'review' or 'quit'."""
        word = command.word
        if word == "next":
            if self.index + 1 >= len(self.items):
                self.console.say("That is the end of the course.")
                return "menu"
            self.index += 1
        elif word == "previous":
            if self.index == 0:
                self.console.say("This is the first item.")
                return "menu"
            self.index -= 1
        elif word == "list":
            self.say_list()
            return "menu"
        elif word == "go":
            target = self._find(command.argument)
            if target is None:
                self.console.say(f"No item '{command.argument}': type l for the list.")
                return "menu"
            self.index = target
        elif word in ("quit", "review"):
            return word
        return "open"

    def course_words(self, line: str) -> None:
        """Raise Command for a course-wide word; ? prints help (the caller asks again)."""
        word, _, rest = line.strip().partition(" ")
        name = COURSE_WORDS.get(word.lower())
        if name is None:
            return
        if name == "help":
            self.console.say(COURSE_HELP)
            return
        if name == "grids" and not rest.strip():
            self.toggle_grids()
            return
        if name == "go" and not rest.strip():
            return
        if name != "go" and rest.strip():
            return  # "next to the cat" is an answer or a sentence, not a command
        raise Command(name, rest.strip())

    def toggle_grids(self) -> None:
        """Figures with their grids (as the CLI prints them) and words, or words only."""
        self.grids = not self.grids
        with contextlib.suppress(StoreError):
            self.store.set_setting(GRIDS_SETTING, "on" if self.grids else "off")
        shown = "grids and words" if self.grids else "words only, from the next figure on"
        self.console.say(f"Figures: {shown}.")

    def after_item(self) -> None:
        """What next: Enter opens the next item (returns), a course word raises Command."""
        following = self.items[self.index + 1] if self.index + 1 < len(self.items) else None
        due = self._due()
        parts = [f"Enter: {item_title(following)}" if following else "End of the course"]
        if due:
            parts.append(f"review: {due} due")
        parts += ["l: list", "q: quit", "?: help"]
        while True:
            line = self.console.ask(", ".join(parts)).strip()
            if line == "" and following is not None:
                self.index += 1
                return
            self.course_words(line)
            if line and line.isdigit():
                self.course_words(f"go {line}")
            if line not in ("", "?", "help"):
                self.console.say("Type one of the words above, or press Enter.")

    def _find(self, text: str) -> int | None:
        text = text.strip()
        if text.isdigit() and 1 <= int(text) <= len(self.items):
            return int(text) - 1
        ids = [item.id for item in self.items]
        return ids.index(text) if text in ids else None

    def _due(self) -> int:
        try:
            return review_due(self.store, self.now()) or 0
        except StoreError:
            return 0

    def say_list(self) -> None:
        try:
            marks = self.study.outline().marks
        except StoreError as error:
            self.console.say(f"Progress: {error}")
            marks = {}
        lines = []
        for number, item in enumerate(self.items, start=1):
            state = mark_words(item, marks.get(item.id, ""))
            here = " (you are here)" if number - 1 == self.index else ""
            lines.append(f"{number}. {item_title(item)}{', ' + state if state else ''}{here}")
        due = self._due()
        if due:
            lines.append(f"Review: {due} questions due (type review).")
        lines.append("Type go and a number to open an item.")
        self.console.say_all(lines)

    # items

    def open_item(self, item: Item) -> None:
        with contextlib.suppress(StoreError):
            self.store.set_setting(LAST_OPENED, item.id)
        self.console.say()
        self.console.say(f"{self.index + 1} of {len(self.items)}. {item_title(item)}", "heading")
        if isinstance(item, Lesson):
            self.lesson(item)
        elif isinstance(item, Quiz):
            self.quiz(item)
        else:
            from tui_course.plain.labs import run_lab

            run_lab(self, item)

    def pager_words(self) -> dict[str, str]:
        return {k: v for k, v in COURSE_WORDS.items() if v not in ("help", "list", "grids")}

    def lesson(self, lesson: Lesson) -> None:
        from tui_course.plain.figures import figure_lines

        try:
            segments = lesson.segments
        except ContentError as error:
            self.console.say(f"This lesson cannot be shown: {error}")
            return
        with contextlib.suppress(StoreError):
            self.store.mark_lesson_opened(lesson.id)
        lines: list[str] = []
        for number, segment in enumerate(segments):
            match segment:
                case BlockSegment():
                    figure = figure_lines(segment, self.console, self.data_dir, self.grids)
                    lines += ["", *figure, ""]
                case ListingSegment():
                    lines += ["", *markdown_lines(f"```python\n{segment.code}\n```"), ""]
                case MarkdownSegment():
                    prose = markdown_lines(segment.text)
                    if number == 0 and prose and prose[0] == lesson.title:
                        prose = prose[2:] if prose[1:2] == [""] else prose[1:]  # said above
                    lines += prose
                case _:
                    assert_never(segment)
        lines += ["", f"End of lesson {lesson.order}."]
        self.console.page(lines, self.pager_words())
        self.lesson_read(lesson.id)

    def lesson_read(self, lesson_id: str) -> None:
        """Its end was printed: read, as the app counts it when its end is on screen."""
        try:
            newly_read = self.study.lesson_read(lesson_id)
        except StoreError as error:
            self.console.say(f"Progress: {error}")
            return
        if newly_read:
            self.submit(())

    def _plain_quiz(self) -> object:
        from tui_course.plain.quiz import PlainQuiz

        recorder = self.study.recorder()
        return PlainQuiz(
            self.console, recorder, self.course_words, self._quiz_finished, self.data_dir
        )

    def quiz(self, quiz: Quiz) -> None:
        from tui_course.plain.quiz import PlainQuiz

        try:
            session = self.study.quiz_session(quiz)
        except ContentError as error:
            self.console.say(f"This quiz cannot open: {error}")
            return
        except StoreError as error:
            self.console.say(f"Progress: the quiz cannot open just now. {error}")
            return
        player = self._plain_quiz()
        assert isinstance(player, PlainQuiz)
        player.run(session)

    def review(self) -> bool:
        """One review pass; False when nothing was due."""
        from tui_course.plain.quiz import PlainQuiz

        try:
            session = self.study.review_session()
        except StoreError as error:
            self.console.say(f"Progress: the review cannot open just now. {error}")
            return False
        self.console.say()
        if session is None:
            self.console.say("Nothing is due for review right now.")
            return False
        self.console.say(f"Review: {len(session.order)} questions due.", "heading")
        player = self._plain_quiz()
        assert isinstance(player, PlainQuiz)
        player.run(session)
        return True

    def _quiz_finished(self, session: QuizSession) -> None:
        self.submit(self.study.sent_after(session.quiz.id))

    # the class drop-box (only when the site config names a class folder)

    def _join_class(self) -> None:
        from tui_course.classroom.link import ClassLink

        self.class_link, problem = ClassLink.from_site(self.data_dir)
        if problem:
            self.console.say(f"Class: {problem}")
        if self.class_link is not None and self.class_link.pending():
            self.submit(None)

    def submit(self, quiz_ids: Sequence[str] | None) -> None:
        """The lessons read and `quiz_ids` (None: what is pending) to the drop-box, waiting
        at most SUBMIT_WAIT; a failure only says 'submission pending'."""
        link = self.class_link
        if link is None:
            return
        payload = None
        if quiz_ids is not None:
            payload = self.study.submission(link, quiz_ids)
            if payload is None:
                self.console.say(
                    "Your results were not sent to the class folder: your progress could not"
                    " be read just now. They go with the next quiz you finish."
                )
                return
        outcome: list[SubmitOutcome] = []
        sender = threading.Thread(
            target=lambda: outcome.append(link.send(payload)), daemon=True, name="submit"
        )
        sender.start()
        sender.join(SUBMIT_WAIT)
        sent = outcome[0] if outcome else None
        if sent is None or sent.pending:
            self.console.say("Submission pending: it is sent again next time.")

    def _leaving(self, wait: float = LEAVING_WAIT) -> None:
        """Send every quiz's state when one was left part-way (the report's 'in progress')."""
        link = self.class_link
        if link is None:
            return
        with contextlib.suppress(Exception, Gone):
            payload = self.study.part_way(link)
            if payload is not None:
                link.send_before_exit(payload, wait=wait)


def _train_extra_installed() -> bool:
    from tui_course.training.runner import train_extra_installed

    return train_extra_installed()
