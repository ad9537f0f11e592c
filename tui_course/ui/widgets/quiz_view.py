"""The quiz: draws a QuizSession and turns keys into its changes.

Every rule (tries, hints, when the key shows, what is saved) lives in
content/session.py; this widget only draws the session and saves each record
before applying it. Prompts, hints, feedback and explanations are Markdown
(content, never markup: Markdown does not read Rich markup and links do not open);
what the student typed is shown as plain Text with control characters removed.
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Markdown, Static

from tui_course.content.grading import AnswerFormatError, Verdict
from tui_course.content.models import Kind
from tui_course.content.session import (
    MAX_ANSWER_CHARS,
    AttemptRecord,
    Outcome,
    PassKind,
    Phase,
    QuizSession,
)
from tui_course.content.text import strip_control
from tui_course.progress.store import StoreError
from tui_course.render.quiz_text import (
    closed_text,
    explanation_text,
    intro_text,
    position_text,
    read_as_text,
    summary_lines,
)
from tui_course.ui.widgets.item_line import ItemLine

ENTER_TOOLTIP = "Start; submit; after the answer, go on"
ENTER_LABELS = (("intro", "Start"), ("asking", "Submit"), ("closed", "Next question"))
RIGHT_TOOLTIP = "Next question (skips an unanswered one)"


class Recorder(Protocol):
    """Where attempts go (tui_course.progress.recorder.QuizRecorder).

    `save` must have written durably when it returns, and raise when it could not.
    """

    def save(self, session: QuizSession, record: AttemptRecord) -> None: ...
    def finish(self, session: QuizSession) -> None: ...
    def first_try_score(self, quiz_id: str, question_count: int) -> int | None: ...
    def mastered_count(self, quiz_id: str, question_count: int) -> int: ...


_KIND_NAMES = {
    Kind.CHOICE: "pick one (1-9, arrows), Enter",
    Kind.MULTI: "pick all that apply (1-9, Space), Enter",
    Kind.NUMERIC: "a number, 2/3 or 1/sqrt(2), Enter",
    Kind.TEXT: "type the answer, Enter",
}
_BOX_KEYS = "Esc then h hint, v answer, Right skip"
_OPEN_KEYS = "h hint, v answer, Right skip"


def _plain(text: str) -> Text:
    return Text(strip_control(text))


class OptionRow(Horizontal):
    """One option: a marker column ("> 2. (*)") and the wrapped option text; a click picks it."""

    class Clicked(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, number: int) -> None:
        super().__init__(classes="option")
        self.number = number

    def compose(self) -> ComposeResult:
        yield Static(classes="option-marker", markup=False)
        yield Static(classes="option-text", markup=False)

    def show(self, marker: str, text: str) -> None:
        self.query_one(".option-marker", Static).update(Text(marker))
        self.query_one(".option-text", Static).update(_plain(text))

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.number))


class QuizView(VerticalScroll, can_focus=True):
    # Here, not in app.tcss: parsed when a quiz first opens, not before the first frame.
    # Markdown's own margins would push the verdict off an 80x24 screen.
    DEFAULT_CSS = """
    QuizView {
        padding: 0 1 0 0;
        height: 1fr;
    }
    QuizView .quiz-title {
        text-style: bold;
        color: $text-muted;
        margin-bottom: 1;
    }
    QuizView .quiz-prompt, QuizView Input, QuizView .quiz-verdict {
        margin-bottom: 1;
    }
    QuizView #quiz-options {
        height: auto;
        margin-bottom: 1;
    }
    QuizView .option {
        height: auto;
    }
    QuizView .option-marker {
        width: auto;
    }
    QuizView .option-text {
        width: 1fr;
    }
    QuizView .option.-picked .option-text {
        text-style: bold;
    }
    QuizView .quiz-hints {
        color: $text-muted;
        margin-bottom: 1;
    }
    QuizView .quiz-verdict.-correct {
        color: $success;
    }
    QuizView .quiz-verdict.-incorrect {
        color: $warning;
    }
    QuizView .quiz-keys {
        color: $text-muted;
    }
    QuizView Markdown {
        margin: 0;
        padding: 0;
    }
    QuizView Markdown > MarkdownBlock {
        padding: 0;
    }
    QuizView Markdown > MarkdownBlock:last-child {
        margin-bottom: 0;
    }
    QuizView .quiz-read-as {
        color: $text-muted;
        margin-bottom: 1;  /* apart from the hint or verdict under it */
    }
    QuizView #quiz-teach, QuizView #quiz-hints {
        margin-bottom: 1;
    }
    """

    BINDINGS = [
        # One key, one binding per phase: the footer names what Enter and Right do now
        # ("Start", "Submit", "Next question"), and help merges them by their tooltip.
        *[
            Binding("enter", f"submit('{phase}')", label, tooltip=ENTER_TOOLTIP)
            for phase, label in ENTER_LABELS
        ],
        Binding("h", "hint", "Hint", tooltip="Show the next hint"),
        Binding("v", "reveal", "Show answer", tooltip="Show the answer (recorded as revealed)"),
        # Right, not n: n is "next item" everywhere in the app (one meaning per key).
        Binding("right", "next('asking')", "Skip", tooltip=RIGHT_TOOLTIP),
        Binding("right", "next('closed')", "Next", show=False, tooltip=RIGHT_TOOLTIP),
        Binding("r", "retry", "Retry", tooltip="At the end: go through the missed ones again"),
        Binding(
            "a",
            "restart",
            "Again",
            show=False,
            tooltip="At the end: go through the whole quiz again",
        ),
        Binding(
            "space",
            "toggle_option",
            "Toggle",
            show=False,
            tooltip="Toggle the highlighted option (multiple choice)",
        ),
        Binding("up,k", "cursor(-1)", "Up", show=False, tooltip="Highlight the option above"),
        Binding("down,j", "cursor(1)", "Down", show=False, tooltip="Highlight the option below"),
        *[Binding(str(n), f"pick({n})", f"Pick {n}", show=False) for n in range(1, 10)],
    ]

    class Finished(Message):
        """The student reached the end of a pass; the outline's marks may have changed."""

        def __init__(self, quiz_id: str) -> None:
            super().__init__()
            self.quiz_id = quiz_id

    class Saved(Message):
        """An attempt was stored: the outline's mark ("[~] 1/3") and review count may move."""

        def __init__(self, quiz_id: str) -> None:
            super().__init__()
            self.quiz_id = quiz_id

    def __init__(
        self,
        recorder: Recorder,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.recorder = recorder
        self.session: QuizSession | None = None
        self.picked: set[int] = set()
        self.cursor = 1
        self.problem = ""  # an answer that could not be read or saved, said in words
        self._drawn: tuple[int, int, Phase] | None = None  # what the option rows were built for

    def compose(self) -> ComposeResult:
        yield Static(classes="quiz-title", markup=False, id="quiz-title")
        yield Markdown(id="quiz-prompt", classes="quiz-prompt", open_links=False)
        yield Vertical(id="quiz-options")
        yield Input(placeholder="your answer", id="quiz-answer", max_length=MAX_ANSWER_CHARS)
        yield Static(classes="quiz-read-as", markup=False, id="quiz-read-as")
        yield Markdown(id="quiz-hints", classes="quiz-hints", open_links=False)
        yield Static(classes="quiz-verdict", markup=False, id="quiz-verdict")
        yield Markdown(id="quiz-teach", classes="quiz-teach", open_links=False)
        yield ItemLine(separator="  |  ", classes="quiz-keys", id="quiz-keys")

    # driving the view

    async def start(self, session: QuizSession) -> None:
        self.session = session
        self._drawn = None
        await self._new_question()

    async def _new_question(self) -> None:
        self.picked = set()
        self.cursor = 1
        self.problem = ""
        box = self.query_one("#quiz-answer", Input)
        box.value = ""
        await self.redraw()
        self._focus_answer()
        self.scroll_home(animate=False)

    def _focus_answer(self) -> None:
        session = self.session
        if (
            session is not None
            and session.phase is Phase.ASKING
            and session.question.kind in (Kind.NUMERIC, Kind.TEXT)
        ):
            self.query_one("#quiz-answer", Input).focus()
        else:
            self.focus()

    async def redraw(self) -> None:
        """Draw the whole session: one place decides what shows in each phase."""
        session = self.session
        if session is None:
            return
        self.refresh_bindings()
        phase = session.phase
        title = self.query_one("#quiz-title", Static)
        prompt = self.query_one("#quiz-prompt", Markdown)
        options = self.query_one("#quiz-options", Vertical)
        box = self.query_one("#quiz-answer", Input)
        verdict_box = self.query_one("#quiz-verdict", Static)
        if phase in (Phase.INTRO, Phase.FINISHED):
            await options.remove_children()
            self._drawn = None
            options.display = box.display = False
            for selector in ("#quiz-read-as", "#quiz-verdict"):
                self.query_one(selector, Static).update("")
            self.query_one("#quiz-read-as").display = False
            await self._markdown("#quiz-hints", "")
            if phase is Phase.INTRO:
                title.update(_plain(f"{session.quiz.title} | {len(session.order)} questions"))
                await prompt.update(self._intro_text(session))
                await self._markdown("#quiz-teach", "")
                self._keys(["Enter: start", "Esc: outline"])
            else:
                await self._draw_summary(session)
            return
        question = session.question
        title.update(_plain(self._position_text(session)))
        await prompt.update(f"**{session.number}.** {question.prompt}")
        drawn = (id(session), session.index, Phase.ASKING)
        if self._drawn != drawn:
            await options.remove_children()
            await options.mount_all(OptionRow(n) for n in range(1, len(question.options) + 1))
            self._drawn = drawn
        options.display = bool(question.options)
        typed = question.kind in (Kind.NUMERIC, Kind.TEXT)
        box.display = typed
        box.disabled = phase is not Phase.ASKING
        self._render_options()
        self._draw_read_as(session)
        hints = session.hints()
        total = len(question.hints)
        await self._markdown(
            "#quiz-hints",
            "\n\n".join(f"*Hint {i} of {total}:* {h}" for i, h in enumerate(hints, start=1)),
        )
        state = session.state
        if phase is Phase.ASKING:
            verdict_box.set_classes("quiz-verdict")
            if self.problem:
                verdict_box.update(_plain(self.problem))
            elif state.tries_used:
                left = session.tries_left
                verdict_box.set_classes("quiz-verdict -incorrect")
                verdict_box.update(
                    _plain(f"Not yet. {left} {'try' if left == 1 else 'tries'} left.")
                )
            else:
                verdict_box.update("")
            # a hint that taught the last wrong answer already shows in the hint list
            teach = state.message if state.message not in hints else None
            await self._markdown("#quiz-teach", teach or "")
            keys = [
                _KIND_NAMES[question.kind],
                f"{session.tries_left} of {session.tries_allowed} tries left",
            ]
            keys.append(_BOX_KEYS if typed else _OPEN_KEYS)
            self._keys(keys)
        else:
            verdict_box.set_classes(
                f"quiz-verdict {'-correct' if state.outcome is Outcome.RIGHT else '-incorrect'}"
            )
            verdict_box.update(_plain(self._closed_text(session)))
            await self._markdown("#quiz-teach", self._explanation(session))
            self._keys(["Enter or Right: next question"])

    def _position_text(self, session: QuizSession) -> str:
        return position_text(session)

    @staticmethod
    def _intro_text(session: QuizSession) -> str:
        return intro_text(session)

    def _closed_text(self, session: QuizSession) -> str:
        return closed_text(session)

    @staticmethod
    def _explanation(session: QuizSession) -> str:
        return explanation_text(session)

    def _draw_read_as(self, session: QuizSession) -> None:
        """Say how a numeric answer is read, so 0,67 or 1/sqrt(2) is never a mystery."""
        widget = self.query_one("#quiz-read-as", Static)
        raw = self.query_one("#quiz-answer", Input).value
        if session.phase is Phase.CLOSED:
            raw = session.state.last_answer
        shown = read_as_text(session, raw)
        widget.display = shown is not None
        widget.update(Text(shown or ""))

    @on(Input.Changed, "#quiz-answer")
    def _typing(self) -> None:
        if self.session is not None and self.session.phase is Phase.ASKING:
            self._draw_read_as(self.session)

    async def _draw_summary(self, session: QuizSession) -> None:
        title = self.query_one("#quiz-title", Static)
        prompt = self.query_one("#quiz-prompt", Markdown)
        title.update(_plain(f"Finished | {session.quiz.title}"))
        first_try = None
        if session.kind is PassKind.RETRY:
            try:
                first_try = self.recorder.first_try_score(session.quiz.id, len(session.questions))
            except StoreError:  # the file is held just now: the summary goes without it
                first_try = None
        mastered = self._mastered(session) if session.kind is PassKind.FIRST else None
        lines = summary_lines(session, mastered, first_try)
        await prompt.update("\n".join(lines))
        await self._markdown("#quiz-teach", "")
        keys = []
        if session.kind is not PassKind.REVIEW:
            if session.missed:
                keys.append(f"r: the {len(session.missed)} missed again")
            keys.append("a: all again")
        if session.kind is not PassKind.REVIEW:
            keys.append("n: next in the course")
        keys.append("Esc: outline")
        self._keys(keys)
        self.focus()

    def _mastered(self, session: QuizSession) -> int | None:
        """Questions right without a reveal in any pass, or None when the store cannot say."""
        try:
            return self.recorder.mastered_count(session.quiz.id, len(session.questions))
        except Exception:  # a busy or broken store: the pass's own summary still stands
            return None

    async def _markdown(self, selector: str, text: str) -> None:
        """Update a Markdown part; an empty one takes no line at all."""
        widget = self.query_one(selector, Markdown)
        widget.display = bool(text)
        await widget.update(text)

    def _keys(self, keys: list[str]) -> None:
        """The keys that work now, broken between keys on a narrow screen."""
        self.query_one("#quiz-keys", ItemLine).show(keys)

    def _render_options(self) -> None:
        session = self.session
        if session is None or session.phase not in (Phase.ASKING, Phase.CLOSED):
            return
        question = session.question
        multi = question.kind is Kind.MULTI
        closed = session.phase is Phase.CLOSED
        for row in self.query(OptionRow):
            number = row.number
            chosen = number in self.picked
            box = ("[x]" if chosen else "[ ]") if multi else ("(*)" if chosen else "( )")
            pointer = ">" if number == self.cursor and not closed else " "
            line = question.options[number - 1]
            if closed:
                key = question.answer if multi else {question.answer}
                if number in key:
                    line += "  <- correct"
                elif chosen:
                    line += "  <- your answer"
            row.show(f"{pointer} {number}. {box} ", line)
            row.set_class(chosen, "-picked")

    # actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer each key only when it does something (the footer follows)."""
        session = self.session
        phase = None if session is None else session.phase
        if action in ("next", "submit"):
            # parameters name the phase a binding is for (see BINDINGS)
            wanted = {"intro": Phase.INTRO, "asking": Phase.ASKING, "closed": Phase.CLOSED}
            if parameters and parameters[0] in wanted:
                return phase is wanted[str(parameters[0])]
            return phase is not None and phase is not Phase.FINISHED
        if action in ("hint", "reveal"):
            return phase is Phase.ASKING
        if action in ("retry", "restart"):
            return self._at_end(session)
        return True

    def _choice_question(self) -> bool:
        return (
            self.session is not None
            and self.session.phase is Phase.ASKING
            and self.session.question.kind in (Kind.CHOICE, Kind.MULTI)
        )

    def action_pick(self, number: int) -> None:
        if not self._choice_question() or self.session is None:
            return
        if number > len(self.session.question.options):
            self.app.bell()
            return
        self.cursor = number
        if self.session.question.kind is Kind.MULTI:
            self.picked ^= {number}
        else:
            self.picked = {number}
        self._render_options()

    def action_toggle_option(self) -> None:
        if self._choice_question():
            self.action_pick(self.cursor)

    def action_cursor(self, step: int) -> None:
        if not self._choice_question() or self.session is None:
            self.scroll_relative(y=step, animate=False)
            return
        count = len(self.session.question.options)
        self.cursor = (self.cursor - 1 + step) % count + 1
        if self.session.question.kind is Kind.CHOICE:
            self.picked = {self.cursor}
        self._render_options()

    @on(OptionRow.Clicked)
    def _clicked(self, event: OptionRow.Clicked) -> None:
        self.action_pick(event.number)

    @on(Input.Submitted)
    async def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_submit()

    async def _save(self, record: AttemptRecord, verdict: Verdict | None = None) -> bool:
        """Save first, then change the session: the screen never runs ahead of the disk."""
        assert self.session is not None
        try:
            self.recorder.save(self.session, record)
        except Exception as error:  # the store failed: say so, change nothing
            self.problem = f"Your answer could not be saved ({error}). Try again."
            await self.redraw()
            return False
        self.problem = ""
        self.session.apply(record, verdict)
        if record.final:
            self.post_message(self.Saved(record.quiz_id))
        return True

    async def action_submit(self, phase: str = "") -> None:
        del phase  # the binding's phase only picks the footer's word; the session decides
        session = self.session
        if session is None or session.phase is Phase.FINISHED:
            return
        if session.phase is Phase.INTRO:
            session.begin()
            await self._new_question()
            return
        if session.phase is Phase.CLOSED:
            await self.action_next()
            return
        question = session.question
        if question.kind in (Kind.NUMERIC, Kind.TEXT):
            raw = self.query_one("#quiz-answer", Input).value
        else:
            raw = ",".join(str(n) for n in sorted(self.picked))
        try:
            verdict, record = session.answer(raw)
        except AnswerFormatError as problem:
            self.problem = str(problem)
            await self.redraw()
            return
        if await self._save(record, verdict):
            await self.redraw()
            if self._in_phase(session, Phase.CLOSED):
                self.focus()
            self.call_after_refresh(self.scroll_end, animate=False)

    async def action_hint(self) -> None:
        session = self.session
        if session is None or session.phase is not Phase.ASKING:
            return
        if session.show_hint() is None:
            self.notify(
                "No more hints for this question."
                if session.question.hints
                else "This question has no hints.",
                timeout=3,
            )
            return
        await self.redraw()

    async def action_reveal(self) -> None:
        session = self.session
        if session is None:
            return
        record = session.reveal()
        if record is not None and await self._save(record):
            await self.redraw()
            self.focus()
            self.call_after_refresh(self.scroll_end, animate=False)

    async def action_next(self, phase: str = "") -> None:
        del phase  # as for action_submit
        session = self.session
        if session is None or session.phase is Phase.FINISHED:
            return
        if session.phase is Phase.INTRO:
            session.begin()
        elif session.phase is Phase.ASKING:
            record = session.skip()
            if record is not None and not await self._save(record):
                return
            session.advance()
        else:
            session.advance()
        if self._in_phase(session, Phase.FINISHED):
            try:
                self.recorder.finish(session)
            except Exception as error:  # every answer is saved already; only the end mark is not
                self.notify(
                    f"The end of this pass could not be saved ({error}).", timeout=8, markup=False
                )
            await self.redraw()
            self.post_message(self.Finished(session.quiz.id))
        else:
            await self._new_question()

    async def action_retry(self) -> None:
        session = self.session
        if self._at_end(session) and session is not None and session.missed:
            await self.start(session.retry())

    async def action_restart(self) -> None:
        session = self.session
        if self._at_end(session) and session is not None:
            await self.start(session.retry(range(len(session.questions))))

    @staticmethod
    def _at_end(session: QuizSession | None) -> bool:
        """The end of a quiz pass (a review pass has no retry: its questions come back)."""
        return (
            session is not None
            and session.phase is Phase.FINISHED
            and session.kind is not PassKind.REVIEW
        )

    @staticmethod
    def _in_phase(session: QuizSession, phase: Phase) -> bool:
        """Read the phase afresh after a change (a narrowed attribute would go stale)."""
        return session.phase is phase
