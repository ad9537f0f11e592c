"""The quiz: draws a QuizRun and turns keys into its changes.

Every rule (tries, hints, when the key shows, what is saved) lives in
content/session.py, the run's state in views/quiz.py and its words in render/quiz.py;
this widget only draws the run and saves each record before applying it. Prompts, hints,
feedback and explanations are Markdown (content, never markup: Markdown does not read Rich
markup and links do not open);
what the student typed is shown as plain Text with control characters removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input, Static

from tui_course.content import kinds
from tui_course.content.grading import Verdict
from tui_course.content.markdown import markdown_parser
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
from tui_course.render import quiz as render
from tui_course.render.quiz import OptionLine
from tui_course.ui.widgets.item_line import ItemLine
from tui_course.ui.widgets.text_box import TextBox
from tui_course.views.quiz import QuizRun

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from tui_course.ui.widgets.code_exercise import CodeExerciseView
    from tui_course.ui.widgets.code_exercises import CodeExercises

ENTER_TOOLTIP = "Start; submit; after the answer, go on"
ENTER_LABELS = (("intro", "Start"), ("asking", "Submit"), ("closed", "Next question"))
RIGHT_TOOLTIP = "Next question (skips an unanswered one)"
# The Markdown parts, each made when it first has text and placed after the part named.
MARKDOWN_PLACES = {
    "quiz-prompt": "quiz-summary",
    "quiz-hints": "quiz-read-as",
    "quiz-teach": "quiz-verdict",
}


class Recorder(Protocol):
    """Where attempts go (tui_course.progress.recorder.QuizRecorder).

    `save` must have written durably when it returns, and raise when it could not.
    """

    def save(self, session: QuizSession, record: AttemptRecord) -> None: ...
    def finish(self, session: QuizSession) -> None: ...
    def first_try_score(self, quiz_id: str, question_count: int) -> int | None: ...
    def mastered_count(self, quiz_id: str, question_count: int) -> int: ...


def _plain(text: str) -> Text:
    return Text(strip_control(text))


class OptionRow(Horizontal):
    """One option: a marker column ("> 2. (*)") and the wrapped option text; a click picks it."""

    class Clicked(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, number: int) -> None:
        super().__init__(name=f"option-{number}", classes="option")
        self.number = number

    def compose(self) -> ComposeResult:
        yield Static(classes="option-marker", markup=False)
        yield Static(classes="option-text", markup=False)

    def show(self, line: OptionLine) -> None:
        marker, text = self.children
        assert isinstance(marker, Static) and isinstance(text, Static)
        marker.update(Text(line.marker))
        text.update(_plain(line.text))
        self.set_class(line.picked, "-picked")

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.number))


class QuizView(VerticalScroll, can_focus=True):
    """Draws a QuizRun (views/quiz.py) with the words of render/quiz.py."""

    class Changed(Message):
        """Something happened in a pass; the app's outline marks may have moved."""

        def __init__(self, view: QuizView, quiz_id: str) -> None:
            super().__init__()
            self.view = view
            self.quiz_id = quiz_id

        @property
        def control(self) -> QuizView:
            return self.view

    class Saved(Changed):
        """A question closed and its attempt is stored: a mark ("[~] 1/3") or the review
        count may move."""

    class Finished(Changed):
        """The student reached the end of a pass: its score is final, the class may hear
        of it."""

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
    QuizView .quiz-prompt, QuizView .quiz-summary, QuizView Input, QuizView .quiz-verdict {
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

    HELP_TITLE = "Quiz"  # its section in the help (screens/help.py)
    HELP_RANK = 30
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
        Binding(
            "shift+up,ctrl+up",
            "carry(-1)",
            "Move up",
            show=False,
            tooltip="Move the picked line up (putting lines in order)",
        ),
        Binding(
            "shift+down,ctrl+down",
            "carry(1)",
            "Move down",
            show=False,
            tooltip="Move the picked line down (putting lines in order)",
        ),
        *[Binding(str(n), f"pick({n})", f"Pick {n}", show=False) for n in range(1, 10)],
    ]

    run: var[QuizRun | None] = var(None, init=False)

    def __init__(
        self,
        recorder: Recorder,
        *,
        exercises: CodeExercises | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.recorder = recorder
        self.exercises = exercises  # builds a code question's editor (None: no code here)
        self.exercise: CodeExerciseView | None = None  # the code question's editor on screen
        self._drawn: QuizRun | None = None  # the run on screen now
        self._shown: dict[str, object] = {}  # each part's text as last drawn
        self._markdown_parts: dict[str, Markdown] = {}  # the Markdown parts made so far

    def compose(self) -> ComposeResult:
        yield Static(classes="quiz-title", markup=False, id="quiz-title")
        yield Static(classes="quiz-summary", markup=False, id="quiz-summary")
        yield Vertical(id="quiz-options")
        # The answer box (#quiz-answer) is mounted here, before #quiz-read-as, when a typed
        # question first shows: a returning student's summary needs none at start.
        yield Static(classes="quiz-read-as", markup=False, id="quiz-read-as")
        yield Static(classes="quiz-verdict", markup=False, id="quiz-verdict")
        yield ItemLine(separator="  |  ", classes="quiz-keys", id="quiz-keys")

    @property
    def session(self) -> QuizSession | None:
        """The pass on screen (a frozen value: the run holds the next one)."""
        return None if self.run is None else self.run.session

    async def start(self, session: QuizSession) -> None:
        self._drawn = None  # a new pass: a new screen, even at the same place
        run = QuizRun.of(session)
        self.run = self._summed_up(run) if run.phase is Phase.FINISHED else run
        await self._draw()

    # drawing: the one watcher

    async def watch_run(self) -> None:
        await self._draw()

    async def _draw(self) -> None:
        """Draw the latest run, all of it in one refresh: held keys queue several changes,
        the first call draws the newest and the others find it drawn already. A part whose
        text did not change is left alone (a Markdown part re-parses on every update)."""
        run = self.run
        if run is None or run is self._drawn or not self.is_attached:
            return  # nothing new, or the view is gone (the app quit while a quiz opened)
        before, self._drawn = self._drawn, run
        moved = before is None or before.place != run.place
        with self.app.batch_update():
            await self._draw_parts(run, moved)
        if not self.is_attached:  # removed while its parts were mounting
            return
        # After the question is on screen: the footer redraws its keys in a later frame.
        self.refresh_bindings()
        self._follow(run, moved, before)

    async def _draw_parts(self, run: QuizRun, moved: bool) -> None:
        options = render.options(run)
        holder = self.get_child_by_id("quiz-options", Vertical)
        if len(holder.children) != len(options):
            await holder.remove_children()
            await holder.mount_all(OptionRow(n) for n in range(1, len(options) + 1))
        for row, line in zip(holder.query_children(OptionRow), options, strict=True):
            row.show(line)
        holder.display = bool(options)
        await self._draw_code(run)
        await self._draw_answer_box(run, moved)
        self._text("#quiz-title", render.title(run))
        self._text("#quiz-read-as", render.read_as(run), hide_empty=True)
        verdict, tone = render.verdict(run)
        self._text("#quiz-verdict", verdict)
        verdict_box = self.get_child_by_id("quiz-verdict")
        for each in ("correct", "incorrect"):  # a class changed restyles: only when it does
            verdict_box.set_class(each == tone, f"-{each}")
        keys = render.keys(run)
        if self._shown.get("#quiz-keys") != keys:
            self._shown["#quiz-keys"] = keys
            self.get_child_by_id("quiz-keys", ItemLine).show(keys)
        summary = render.summary(run) if run.phase is Phase.FINISHED else ""
        self._text("#quiz-summary", summary, hide_empty=True)
        await self._markdown("quiz-prompt", render.prompt(run))
        await self._markdown("quiz-hints", render.hints(run))
        await self._markdown("quiz-teach", render.teach(run))

    async def _draw_answer_box(self, run: QuizRun, moved: bool) -> None:
        """The box for a typed answer, made the first time a typed question shows (an Input
        costs its CSS and styling at start otherwise) and kept, hidden, after it."""
        wanted = run.phase in (Phase.ASKING, Phase.CLOSED) and kinds.of(run.question).typed
        found = self.query_children("#quiz-answer").results(Input)
        box = next(found, None)
        if box is None:
            if not wanted:
                return
            box = TextBox(placeholder="your answer", id="quiz-answer", max_length=MAX_ANSWER_CHARS)
            await self.mount(box, before="#quiz-read-as")
        box.display = wanted
        box.disabled = run.phase is not Phase.ASKING
        if moved:  # else the box runs ahead of the run while a fast typist types
            box.value = run.typed

    async def _draw_code(self, run: QuizRun) -> None:
        """A code question's editor, made when its question shows (TextArea is not start-up
        work) and told when the question closes (the solution then shows)."""
        wanted = self.exercises is not None and run.shows_code
        key = run.code_key if wanted else None
        if self.exercise is not None and self.exercise.draft_key != key:
            await self.exercise.remove()
            self.exercise = None
        if wanted and self.exercise is None and self.exercises is not None and key is not None:
            self.exercise = self.exercises.view(run.question, key)
            await self.mount(self.exercise, after="#quiz-options")
        if self.exercise is not None and run.phase is Phase.CLOSED:
            self.exercise.close(passed=run.session.state.outcome is Outcome.RIGHT)

    def on_code_exercise_view_checked(self, event: CodeExerciseView.Checked) -> None:
        """A finished check is an answer (a sandbox that could not run is not one). Caught
        by name: the editor's module loads only when a code question opens."""
        event.stop()
        run = self.run
        if run is None or run.phase is not Phase.ASKING or event.exercise is not self.exercise:
            return  # a closed question: checking goes on as practice, unrecorded
        from tui_course.codecheck.service import attempt_of, counts_as_attempt

        if not counts_as_attempt(event.verdict):
            return  # said in the editor, and it costs no try

        # No feedback of its own: the editor shows the judge's words; the quiz adds a hint.
        graded = run.code_graded(attempt_of(event.code, event.verdict))
        if isinstance(graded, str):
            self.run = run.with_problem(graded)
        else:
            verdict, record = graded
            self.run = self._saved(run, record, verdict)

    def on_unmount(self) -> None:
        if self.exercises is not None:
            self.exercises.close()

    def _text(self, selector: str, text: str | Text, hide_empty: bool = False) -> None:
        """A text part (a rich Text from render/ is drawn as it is), updated only when its
        text changed."""
        widget = self.get_child_by_id(selector.removeprefix("#"), Static)
        widget.display = bool(text) or not hide_empty
        if self._shown.get(selector) != text:
            self._shown[selector] = text
            widget.update(text if isinstance(text, Text) else _plain(text))

    async def _markdown(self, part: str, text: str) -> None:
        """A Markdown part, made the first time it has text (a returning student's summary
        then loads no Markdown stack at start) and parsed again only when its text
        changed; an empty one takes no line at all."""
        widget = self._markdown_parts.get(part)
        if widget is None:
            if not text:
                return
            from textual.widgets import Markdown

            widget = Markdown(  # parsed as it mounts: not once empty, then again
                text, id=part, classes=part, open_links=False, parser_factory=markdown_parser
            )
            self._markdown_parts[part] = widget
            await self.mount(widget, after=self.get_child_by_id(MARKDOWN_PLACES[part]))
        widget.display = bool(text)
        if widget.source != text:
            await widget.update(text)

    def _follow(self, run: QuizRun, moved: bool, before: QuizRun | None) -> None:
        """Focus and scrolling follow the run: a new question or summary starts at the top
        with the keys in its answer box (or the view); an answer taken scrolls to what it
        says, and a closed question hands the keys to the view."""
        typing_code = self.exercise is not None and self.exercise.typing
        if moved:
            if run.asks_typed:
                self.get_child_by_id("quiz-answer", Input).focus()
            elif self.exercise is not None and run.phase is Phase.ASKING:
                self.exercise.focus_editor()
            elif typing_code:
                pass  # a check closed it mid-typing: the next letters must not be commands
            else:
                self.focus()
            if run.phase is not Phase.CLOSED:
                self.scroll_home(animate=False)
                return
        elif before is None or before.session.state.tries_used == run.session.state.tries_used:
            return  # a pick, a hint, a letter typed: nothing to scroll to
        self.call_after_refresh(self.scroll_end, animate=False)

    # actions: one state change each

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer each key only when it does something (the footer follows)."""
        run = self.run
        phase = None if run is None else run.phase
        if action == "submit" and self.exercise is not None and self.exercise.typing:
            return False  # Enter types a new line in the code editor (ctrl+r checks)
        if action in ("next", "submit"):
            # parameters name the phase a binding is for (see BINDINGS)
            wanted = {"intro": Phase.INTRO, "asking": Phase.ASKING, "closed": Phase.CLOSED}
            if parameters and parameters[0] in wanted:
                return phase is wanted[str(parameters[0])]
            return phase is not None and phase is not Phase.FINISHED
        if action == "hint":
            return run is not None and run.session.hint_left
        if action == "reveal":
            return phase is Phase.ASKING
        if action in ("retry", "restart"):
            return run is not None and run.at_end
        return True

    def action_pick(self, number: int) -> None:
        run = self.run
        if run is None or not run.asks_rows:
            return
        picked = run.pick(number)
        if picked is run:  # no such option or row
            self.app.bell()
            return
        self.run = picked

    def action_toggle_option(self) -> None:
        if self.run is not None:
            self.run = self.run.toggle()

    def action_cursor(self, step: int) -> None:
        run = self.run
        if run is None or not run.asks_rows:
            self.scroll_relative(y=step, animate=False)
            return
        self.run = run.move_cursor(step)

    def action_carry(self, step: int) -> None:
        if self.run is not None:
            self.run = self.run.carry(step)

    @on(OptionRow.Clicked)
    def _clicked(self, event: OptionRow.Clicked) -> None:
        self.action_pick(event.number)

    @on(Input.Changed, "#quiz-answer")
    def _typing(self, event: Input.Changed) -> None:
        if self.run is not None and self.run.phase is Phase.ASKING:
            self.run = self.run.type(event.value)

    @on(Input.Submitted)
    async def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        if self.run is not None:
            self.run = self.run.type(event.value)
        await self.action_submit()

    def _saved(
        self, run: QuizRun, record: AttemptRecord, verdict: Verdict | None = None
    ) -> QuizRun:
        """Save first, then change the run: the screen never runs ahead of the disk."""
        try:
            self.recorder.save(run.session, record)
        except Exception as error:  # the store failed: say so, change nothing else
            return run.unsaved(error)
        if record.final:
            self.post_message(self.Saved(self, record.quiz_id))
        return run.saved(record, verdict)

    async def action_submit(self, phase: str = "") -> None:
        del phase  # the binding's phase only picks the footer's word; the run decides
        run = self.run
        if run is None or run.phase is Phase.FINISHED:
            return
        if run.phase is Phase.INTRO:
            self.run = run.begin()
        elif run.phase is Phase.CLOSED:
            await self.action_next()
        elif self.exercise is not None:
            self.exercise.request_check()  # its verdict comes back as CodeExerciseView.Checked
        else:
            graded = run.graded()
            if isinstance(graded, str):
                self.run = run.with_problem(graded)
            else:
                verdict, record = graded
                self.run = self._saved(run, record, verdict)

    def action_hint(self) -> None:
        run = self.run
        if run is None or run.phase is not Phase.ASKING:
            return
        hinted = run.hint()
        if hinted is run:
            self.notify(
                "No more hints for this question."
                if run.question.hints
                else "This question has no hints.",
                timeout=3,
            )
        self.run = hinted

    def action_reveal(self) -> None:
        run = self.run
        record = None if run is None else run.reveal_record()
        if run is not None and record is not None:
            self.run = self._saved(run, record)

    async def action_next(self, phase: str = "") -> None:
        del phase  # as for action_submit
        run = self.run
        if run is None or run.phase is Phase.FINISHED:
            return
        if run.phase is Phase.INTRO:
            self.run = run.begin()
            return
        record = run.skip_record()
        if record is not None:
            run = self._saved(run, record)
            if run.problem:
                self.run = run
                return
        run = run.advanced()
        if run.phase is Phase.FINISHED:
            run = self._finish(run)
        self.run = run
        if run.phase is Phase.FINISHED:
            self.post_message(self.Finished(self, run.session.quiz.id))

    def _finish(self, run: QuizRun) -> QuizRun:
        """Mark the pass finished in the store, and sum it up."""
        try:
            self.recorder.finish(run.session)
        except Exception as error:  # every answer is saved already; only the end mark is not
            self.notify(
                f"The end of this pass could not be saved ({error}).", timeout=8, markup=False
            )
        return self._summed_up(run)

    def _summed_up(self, run: QuizRun) -> QuizRun:
        """A finished run with what the store says beyond it, for the summary."""
        session = run.session
        count = len(session.questions)
        try:
            mastered: int | None = self.recorder.mastered_count(session.quiz.id, count)
        except Exception:  # a busy or broken store: the pass's own summary still stands
            mastered = None
        score = None
        if session.kind is PassKind.RETRY:
            try:
                score = self.recorder.first_try_score(session.quiz.id, count)
            except StoreError:  # the file is held just now: the summary goes without it
                score = None
        return run.finished(mastered, score)

    def action_retry(self) -> None:
        run = self.run
        if run is not None and run.at_end and run.session.missed:
            self.run = run.again()

    def action_restart(self) -> None:
        run = self.run
        if run is not None and run.at_end:
            self.run = run.again(range(len(run.session.questions)))
