"""The quiz: one question at a time, keyboard first, every cue in words as well as colour."""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from tui_course.content.grading import AnswerFormatError, Verdict
from tui_course.content.models import Kind
from tui_course.content.session import QuizSession


class Recorder(Protocol):
    """Where runs and attempts go (tui_course.progress.recorder.QuizRecorder).

    `attempt` must have written durably when it returns, and raise when it could not.
    """

    def start(self, session: QuizSession) -> None: ...
    def attempt(self, session: QuizSession, answer: str, verdict: Verdict) -> None: ...
    def finish(self, session: QuizSession) -> None: ...


_NUMBER_KEYS = frozenset("0123456789.-+/eE% ")
_KIND_NAMES = {
    Kind.CHOICE: "pick one: keys 1-9 or arrows, Enter to submit",
    Kind.MULTI: "pick all that apply: keys 1-9 or space to toggle, Enter to submit",
    Kind.NUMERIC: "type a number, Enter to submit",
    Kind.TEXT: "type your answer, Enter to submit",
}


class NumberInput(Input):
    """Takes only what a number can contain; other letters reach the quiz's keys (h, n, r)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character in _NUMBER_KEYS

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not self.check_consume_key(event.key, event.character):
            event.prevent_default()  # skip Input's insert; the key bubbles on to the bindings


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
        self.query_one(".option-text", Static).update(Text(text))

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.number))


class QuizView(VerticalScroll, can_focus=True):
    BINDINGS = [
        Binding("enter", "submit", "Submit", tooltip="Submit; after a verdict, go on"),
        Binding("h", "hint", "Hint", tooltip="Show the next hint"),
        Binding("right", "next", "Skip", tooltip="Next question (skips an unanswered one)"),
        Binding("r", "retry", "Retry", tooltip="Try again; at the end, retry the ones you missed"),
        Binding(
            "a", "restart", "Start over", show=False, tooltip="At the end: start the quiz over"
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
        """The student reached the end of a run; the outline's score may have changed."""

        def __init__(self, quiz_id: str) -> None:
            super().__init__()
            self.quiz_id = quiz_id

    def __init__(self, recorder: Recorder, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recorder = recorder
        self.session: QuizSession | None = None
        self.verdict: Verdict | None = None
        self.picked: set[int] = set()
        self.cursor = 1
        self.last_answer = ""

    def compose(self) -> ComposeResult:
        yield Static(classes="quiz-title", markup=False, id="quiz-title")
        yield Static(classes="quiz-prompt", markup=False, id="quiz-prompt")
        yield Vertical(id="quiz-options")
        yield NumberInput(placeholder="your answer", id="quiz-number")
        yield Input(placeholder="your answer", id="quiz-text")
        yield Static(classes="quiz-hints", markup=False, id="quiz-hints")
        yield Static(classes="quiz-verdict", markup=False, id="quiz-verdict")
        yield Static(classes="quiz-keys", markup=False, id="quiz-keys")

    # driving the view

    async def start(self, session: QuizSession) -> None:
        self.session = session
        self.recorder.start(session)
        await self._show_question()

    async def _show_question(self) -> None:
        session = self.session
        assert session is not None
        self.verdict = None
        self.picked = set()
        self.cursor = 1
        self.last_answer = ""
        question = session.question
        position = f"Question {session.position + 1} of {len(session.order)}"
        if not session.is_full_run:
            position += " (retrying missed ones)"
        self._set("#quiz-title", f"{position} | {session.quiz.title}")
        self._set("#quiz-prompt", f"{session.number}. {question.prompt}")
        options = self.query_one("#quiz-options", Vertical)
        await options.remove_children()
        await options.mount_all(OptionRow(n) for n in range(1, len(question.options) + 1))
        options.display = bool(question.options)
        number_input = self.query_one("#quiz-number", NumberInput)
        text_input = self.query_one("#quiz-text", Input)
        number_input.display = question.kind is Kind.NUMERIC
        text_input.display = question.kind is Kind.TEXT
        for box in (number_input, text_input):
            box.value = ""
            box.disabled = False
        self._set("#quiz-verdict", "")
        self.query_one("#quiz-verdict").set_classes("quiz-verdict")
        self._show_hints()
        self._set("#quiz-keys", _KIND_NAMES[question.kind] + "  |  h hint  |  n skip")
        self._render_options()
        self._focus_answer()
        self.scroll_home(animate=False)

    def _focus_answer(self) -> None:
        assert self.session is not None
        kind = self.session.question.kind
        if kind is Kind.NUMERIC:
            self.query_one("#quiz-number", NumberInput).focus()
        elif kind is Kind.TEXT:
            self.query_one("#quiz-text", Input).focus()
        else:
            self.focus()

    def _set(self, selector: str, text: str) -> None:
        self.query_one(selector, Static).update(Text(text))

    def _render_options(self) -> None:
        if self.session is None or self.session.finished:
            return
        question = self.session.question
        multi = question.kind is Kind.MULTI
        for row in self.query(OptionRow):
            number = row.number
            chosen = number in self.picked
            box = ("[x]" if chosen else "[ ]") if multi else ("(*)" if chosen else "( )")
            pointer = ">" if number == self.cursor and self.verdict is None else " "
            line = question.options[number - 1]
            if self.verdict is not None:
                key = question.answer if multi else {question.answer}
                if number in key:
                    line += "  <- correct"
                elif chosen:
                    line += "  <- your answer"
            row.show(f"{pointer} {number}. {box} ", line)
            row.set_class(chosen, "-picked")

    def _show_hints(self) -> None:
        assert self.session is not None
        hints = self.session.hints()
        total = len(self.session.question.hints)
        lines = [f"Hint {i} of {total}: {hint}" for i, hint in enumerate(hints, start=1)]
        self._set("#quiz-hints", "\n".join(lines))
        self.query_one("#quiz-hints").display = bool(lines)

    # actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """After the last question there is nothing left to skip to."""
        if action == "next":
            return self.session is not None and not self.session.finished
        return True

    def _choice_question(self) -> bool:
        return (
            self.session is not None
            and not self.session.finished
            and self.verdict is None
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

    async def action_submit(self) -> None:
        session = self.session
        if session is None:
            return
        if session.finished:
            return
        if self.verdict is not None:
            await self.action_next()
            return
        question = session.question
        if question.kind is Kind.NUMERIC:
            raw = self.query_one("#quiz-number", NumberInput).value
        elif question.kind is Kind.TEXT:
            raw = self.query_one("#quiz-text", Input).value
        else:
            raw = ",".join(str(n) for n in sorted(self.picked))
        try:
            verdict = session.check(raw)
        except AnswerFormatError as problem:
            self._set("#quiz-verdict", str(problem))
            return
        try:
            self.recorder.attempt(session, raw.strip(), verdict)
        except Exception as error:  # the store failed: say so, show no verdict
            self._set("#quiz-verdict", f"Your answer could not be saved ({error}). Try again.")
            return
        session.count(verdict)
        self.verdict = verdict
        self.last_answer = raw
        self._show_verdict(verdict)

    def _show_verdict(self, verdict: Verdict) -> None:
        assert self.session is not None
        question = self.session.question
        lines = ["Correct." if verdict.correct else "Not quite."]
        if verdict.feedback:
            lines.append(verdict.feedback)
        if not verdict.correct and question.kind in (Kind.NUMERIC, Kind.TEXT):
            lines.append(
                f"You answered {self.last_answer.strip()}; the answer is {verdict.expected}."
            )
        lines += ["", f"Why: {question.explanation}"]
        box = self.query_one("#quiz-verdict", Static)
        box.update(Text("\n".join(lines)))
        box.set_classes(f"quiz-verdict {'-correct' if verdict.correct else '-incorrect'}")
        for input_box in self.query(Input):
            input_box.disabled = True
        keys = "Enter or Right: next question"
        if not verdict.correct:
            keys = "r: try again  |  " + keys
        self._set("#quiz-keys", keys)
        self._render_options()
        self.focus()
        self.call_after_refresh(self.scroll_end, animate=False)

    def action_hint(self) -> None:
        session = self.session
        if session is None or session.finished:
            return
        if session.reveal_hint() is None:
            self.notify(
                "No more hints for this question."
                if session.question.hints
                else "This question has no hints.",
                timeout=3,
            )
            return
        self._show_hints()

    async def action_next(self) -> None:
        session = self.session
        if session is None or session.finished:
            return
        session.advance()
        if session.finished:
            self.recorder.finish(session)
            await self._show_summary()
            self.post_message(self.Finished(session.quiz.id))
        else:
            await self._show_question()

    async def action_retry(self) -> None:
        session = self.session
        if session is None:
            return
        if session.finished:
            if session.missed:
                await self.start(session.retry_missed())
            return
        if self.verdict is not None and not self.verdict.correct:
            await self._show_question()

    async def action_restart(self) -> None:
        session = self.session
        if session is not None and session.finished:
            await self.start(QuizSession.start(session.quiz, session.questions))

    async def _show_summary(self) -> None:
        session = self.session
        assert session is not None
        total = len(session.order)
        self._set("#quiz-title", f"Finished | {session.quiz.title}")
        lines = [f"Score: {session.correct_count} of {total} right on the first try."]
        if session.missed:
            lines.append("")
            lines.append("Missed or skipped:")
            for index in session.missed:
                prompt = session.questions[index].prompt.replace("\n", " ")
                short = prompt if len(prompt) <= 60 else prompt[:57] + "..."
                lines.append(f"  {index + 1}. {short}")
        self._set("#quiz-prompt", "\n".join(lines))
        await self.query_one("#quiz-options").remove_children()
        self.query_one("#quiz-options").display = False
        for input_box in self.query(Input):
            input_box.display = False
        self._set("#quiz-hints", "")
        self._set("#quiz-verdict", "")
        self.query_one("#quiz-verdict").set_classes("quiz-verdict")
        keys = ["a: start over", "n: next in the course", "Esc: outline"]
        if session.missed:
            keys.insert(0, f"r: retry the {len(session.missed)} you missed")
        self._set("#quiz-keys", "  |  ".join(keys))
        self.focus()
