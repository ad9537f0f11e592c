"""A code question's editor: write the function, check it in the sandbox, see the verdict.

A StateView of a CodeExercise (views/code_exercise.py); the words come from render/ (the
verdict from the judge's renderer, the rest from render/code_exercise.py). Two things happen
off the UI thread so typing never waits: a check (a worker thread calls the checker, which
runs the code in the sandbox) and the draft's save (debounced, an atomic 0600 write in the
data folder, progress/drafts.py).
The quiz hears of every finished check (CodeExerciseView.Checked) and records it like an answer.

The editor is built after the view's first frame: the first one takes most of a second
(TextArea, tree-sitter), and until it takes keys the view says it is opening and that keys
pressed meanwhile are not typed (and, after, how many were not).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.geometry import Region
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static, TextArea

from tui_course.progress.drafts import MAX_DRAFT_BYTES, read_draft, write_draft
from tui_course.render.code_exercise import solution_text, status_text
from tui_course.text.safe import clean
from tui_course.ui.widgets.code_editor import CodeEditor, python_highlighting
from tui_course.ui.widgets.state_view import StateView
from tui_course.views.code_exercise import CodeExercise, CodePhase, Judged

if TYPE_CHECKING:
    from tui_course.sandbox.limits import Limits

# The checks' limits (None: the sandbox's defaults); tests shorten the wall clock.
CHECK_LIMITS: Limits | None = None
SAVE_DELAY = 0.4  # seconds of quiet typing before the draft is written

Checker = Callable[[str], Judged]  # blocking: runs the code, returns the verdict
# A verdict as a renderable that words itself for the width it gets (render/code.py)
Describe = Callable[[Any], RenderableType]


class CodeExerciseView(StateView[CodeExercise], Vertical, can_focus=True):
    class Checked(Message):
        """A check finished: the quiz records it as an attempt."""

        def __init__(self, exercise: CodeExerciseView, code: str, verdict: Any) -> None:
            super().__init__()
            self.exercise = exercise
            self.code = code
            self.verdict = verdict

        @property
        def control(self) -> CodeExerciseView:
            return self.exercise

    DEFAULT_CSS = """
    CodeExerciseView {
        height: auto;
        margin-bottom: 1;
    }
    /* A fixed height: an editor that grew with its text would lay the quiz out again on
       every Enter (50 ms a key on a quiet machine). At most 60% of the terminal's rows:
       on a short one (40x12) it is not taller than the screen, and the lines under it
       can show with it. */
    CodeExerciseView CodeEditor {
        height: 14;
        max-height: 60vh;
    }
    CodeExerciseView .code-warning, CodeExerciseView .code-status {
        color: $text-muted;
        height: auto;
    }
    CodeExerciseView .code-verdict, CodeExerciseView .code-solution {
        height: auto;
        margin-top: 1;
    }
    CodeExerciseView .-empty {
        display: none;
    }
    """
    # its section in the help (screens/help.py)
    HELP_TITLE = "Code question (the editor: ctrl and F keys work while you type)"
    HELP_RANK = 40
    BINDINGS = [
        Binding("ctrl+r,f5", "check", "Check", tooltip="Check your code (it runs in the sandbox)"),
        Binding("ctrl+n", "reset", "Reset", tooltip="Reset to the starter code (asks first)"),
        Binding(
            "ctrl+o",
            "external_editor",
            "$EDITOR",
            tooltip="Edit the code in your $EDITOR (where you have a shell)",
        ),
        Binding("i", "edit", "Edit", show=False, tooltip="Back into the code editor"),
    ]

    def __init__(
        self,
        *,
        starter: str,
        solution: str,
        draft_key: tuple[str, int],
        data_dir: Path,
        checker: Checker,
        describe: Describe,
        prepare: Callable[[], str | None] | None = None,
        editor_allowed: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        notice = ""
        try:
            draft = read_draft(data_dir, *draft_key)
        except OSError as error:  # a link or an unreadable file: start from the starter
            draft, notice = None, f"Your saved draft could not be read ({error.strerror or error})."
        state = CodeExercise.open(starter, solution, draft)
        if notice:
            state = state.save_failed(notice)
        super().__init__(state, name=name, id=id, classes=classes)
        self.draft_key = draft_key
        self.data_dir = data_dir
        self._checker = checker
        self._describe = describe
        self._prepare = prepare
        self.editor_allowed = editor_allowed
        self._save_timer: Timer | None = None
        self._save_lock = threading.Lock()
        self._newest = ""
        self._editor_started = False
        self._editor_wanted = False  # the quiz gave the keys to the editor before it was built

    def compose(self) -> ComposeResult:
        yield Static(classes="code-warning -empty", markup=False)
        yield Static(classes="code-status -empty", markup=False)
        yield Static(classes="code-verdict -empty", markup=False)
        yield Static(classes="code-solution -empty", markup=False)

    async def on_show(self) -> None:
        """Build the editor once the view has been on screen: Show comes after the frame
        that laid it out was drawn (the quiz mounts this view inside a batch update, when
        an after-refresh callback could run before anything reached the terminal)."""
        state = self.state
        if self._editor_started:
            return
        self._editor_started = True
        editor = CodeEditor.code_editor(
            state.draft, language=python_highlighting(), classes="code-editor"
        )
        await self.mount(editor, before=".code-status")
        if self._editor_wanted and (self.has_focus or self.app.focused is None):
            editor.focus()  # still here: the keys go to the code; TakingKeys ends the opening
        else:  # built, the keys elsewhere (a closed question, Esc)
            self.state = self.state.editor_ready()
        if self._prepare is not None:
            self._prepare_checks(self._prepare)

    @work(thread=True, group="code-prepare")
    def _prepare_checks(self, prepare: Callable[[], str | None]) -> None:
        """The checker's start (its imports, the sandbox probe, a warm worker, the
        reference's results) off the UI thread: none of it holds up the question."""
        try:
            warning = prepare()
        except Exception as error:  # the machinery (or the quiz left meanwhile)
            warning = f"The sandbox could not start: {str(error)[:200]}"
        if self.is_mounted:
            self.app.call_from_thread(self._warned, warning or "")

    def _warned(self, warning: str) -> None:
        if self.is_mounted:
            self.state = self.state.with_warning(warning)

    def focus_editor(self) -> None:
        """The keys to the editor; while it is being built, to this view, which holds them
        back (a letter must not reach the quiz's keys) and hands over once it is there."""
        editors = self.query(CodeEditor)
        if editors:
            editors.first().focus()
            return
        self._editor_wanted = True
        self.focus()

    @property
    def editor(self) -> CodeEditor:
        return self.query_one(CodeEditor)

    @property
    def has_editor(self) -> bool:
        return bool(self.query(CodeEditor))

    @property
    def typing(self) -> bool:
        """The keys go to the editor: False while the view is mounting and has no editor yet
        (the footer asks the quiz's bindings then, when the first question opens)."""
        editors = self.query(CodeEditor)
        return bool(editors) and editors.first().has_focus

    # drawing

    def draw(self, old: CodeExercise | None, new: CodeExercise) -> None:
        for editor in self.query(CodeEditor):  # none yet while it is being built
            if editor.text != new.draft:  # a reset (or $EDITOR): undo still brings it back
                editor.replace(new.draft, editor.document.start, editor.document.end)
        ascii_only = getattr(self.app, "ascii_only", False)

        def shown(words: Callable[[CodeExercise], str]) -> tuple[str | None, str]:
            """A part's text before (None: not drawn yet) and now."""
            return (None if old is None else words(old)), words(new)

        self._show(".code-warning", *shown(lambda state: state.warning))
        self._show(".code-status", *shown(lambda state: status_text(state, ascii_only)))
        if old is None or old.verdict is not new.verdict:
            self._show_verdict(new)
            if new.verdict is not None:
                self.call_after_refresh(self._verdict_into_view)
        self._show(".code-solution", *shown(solution_text))
        if old is None or old.phase is not new.phase:  # the footer follows the phase
            self.set_class(new.phase is CodePhase.CHECKING, "-checking")
            self.refresh_bindings()

    def _show(self, selector: str, before: str | None, text: str) -> None:
        """Update a part only when its text changed: a keystroke must not lay out the quiz."""
        if before == text:
            return
        widget = self.query_one(selector, Static)
        widget.set_class(not text, "-empty")
        widget.update(Text(clean(text)))

    def _show_verdict(self, state: CodeExercise) -> None:
        """The verdict's renderable lays itself out at the width it gets, again on a resize
        (prose rewrapped, the matrices side by side or stacked)."""
        widget = self.query_one(".code-verdict", Static)
        widget.set_class(state.verdict is None, "-empty")
        widget.update("" if state.verdict is None else self._describe(state.verdict))

    def _verdict_into_view(self) -> None:
        self.query_one(".code-verdict").scroll_visible(animate=False)

    # the quiz's side

    def close(self, passed: bool) -> None:
        """The quiz closed the question: the solution shows."""
        self.state = self.state.close(passed)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.state
        if action == "check":
            return True if state.phase is not CodePhase.CHECKING else None  # shown, greyed
        if action == "external_editor":
            return self.editor_allowed
        if action == "edit":
            return self.has_editor and not self.editor.has_focus
        return True

    # actions: one state change each

    def action_check(self) -> None:
        self._flush_save()
        self.state, number = self.state.check_started()
        if number is not None:
            self._check(number, self.state.draft)

    def request_check(self) -> None:
        """The quiz's Enter on a code question."""
        self.action_check()

    @work(thread=True, group="code-check")
    def _check(self, number: int, code: str) -> None:
        try:
            verdict = self._checker(code)
        except Exception as error:  # the machinery, not the student's code
            self.app.call_from_thread(self._check_failed, number, str(error)[:200])
            return
        self.app.call_from_thread(self._checked, number, code, verdict)

    def _checked(self, number: int, code: str, verdict: Judged) -> None:
        if not self.is_mounted:
            return
        before = self.state
        self.state = before.check_finished(number, code, verdict)
        if self.state is not before:
            self.post_message(self.Checked(self, code, verdict))

    def _check_failed(self, number: int, problem: str) -> None:
        if self.is_mounted:
            self.state = self.state.check_failed(number, problem)

    def action_reset(self) -> None:
        self.state = self.state.ask_reset()

    def action_edit(self) -> None:
        self.focus_editor()

    def action_external_editor(self) -> None:
        """$EDITOR on a copy of the draft, the app suspended meanwhile (a shell's own)."""
        from tui_course.runtime.shell_access import external_editor, shell_access

        access = shell_access()
        if not access.allowed:
            self.notify(f"No $EDITOR here: {access.reason}.", timeout=5, markup=False)
            return
        command = external_editor()
        if command is None:
            self.notify("Set $EDITOR (or $VISUAL) to edit in your own editor.", timeout=5)
            return
        with tempfile.TemporaryDirectory(prefix="attn-tui-edit-") as folder:
            path = Path(folder) / f"{self.draft_key[0]}-{self.draft_key[1]}.py"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.state.draft)
            try:
                with self.app.suspend():
                    subprocess.run([*shlex.split(command), str(path)], check=False)
            except Exception as error:  # no terminal to give away (or no such editor)
                self.notify(f"The editor could not start: {error}", timeout=5, markup=False)
                return
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_DRAFT_BYTES + 1)
        if len(text) > CodeEditor.max_chars:
            self.notify("That file is too large for a check; the draft is unchanged.", timeout=5)
            return
        self.state = self.state.typed(text)
        self._schedule_save()

    # typing and the draft on disk

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.state = self.state.typed(event.text_area.text)
        self._schedule_save()
        self.call_after_refresh(self._cursor_into_view)

    def _cursor_into_view(self) -> None:
        """A verdict scrolled into view can leave the editor above the screen: the next
        key typed brings the cursor back, so the student never types blind."""
        editor = self.editor
        box = next((node for node in self.ancestors if isinstance(node, ScrollableContainer)), None)
        if box is None or not editor.has_focus:
            return
        x, y = editor.cursor_screen_offset
        shown = box.content_region
        if shown.contains(x, y):
            return
        row = y - shown.y + round(box.scroll_y)
        box.scroll_to_region(Region(0, row, 1, 1), animate=False, immediate=True)

    # the editor opening

    def on_key(self, event: events.Key) -> None:
        """Keys pressed on this view while the editor is being built are not typed (nor
        taken as the quiz's: a letter of a name could be a command); Esc still leaves."""
        if self.state.opening and event.key != "escape":
            event.stop()
            event.prevent_default()
            self._key_not_typed()

    @on(CodeEditor.Dropped)
    def _dropped(self, event: CodeEditor.Dropped) -> None:
        event.stop()
        self._key_not_typed()

    def _key_not_typed(self) -> None:
        self.state = self.state.keys_not_typed(self.state.not_typed + 1)

    @on(CodeEditor.TakingKeys)
    def _taking_keys(self, event: CodeEditor.TakingKeys) -> None:
        event.stop()
        self.state = self.state.editor_ready()

    @on(CodeEditor.Refused)
    def _refused(self, event: CodeEditor.Refused) -> None:
        event.stop()
        self.state = self.state.with_notice(event.message)

    def _schedule_save(self) -> None:
        if self._save_timer is not None:
            self._save_timer.stop()
        self._save_timer = self.set_timer(SAVE_DELAY, self._save_now)

    def _save_now(self) -> None:
        self._save_timer = None
        if self.state.unsaved:
            self._save(self.state.draft)

    @work(thread=True, group="draft-save")
    def _save(self, text: str) -> None:
        """One save at a time, each writing the newest draft asked for: two saves racing
        can never leave the older text on disk."""
        self._newest = text
        with self._save_lock:
            text = self._newest
            try:
                write_draft(self.data_dir, *self.draft_key, text)
            except (OSError, ValueError) as error:
                problem = getattr(error, "strerror", None) or str(error)
                self.app.call_from_thread(self._save_failed, str(problem))
                return
        self.app.call_from_thread(self._saved, text)

    def _saved(self, text: str) -> None:
        if self.is_mounted:
            self.state = self.state.saved(text)

    def _save_failed(self, problem: str) -> None:
        if self.is_mounted:
            self.state = self.state.save_failed(problem)

    def _flush_save(self, leaving: bool = False) -> None:
        """Write the draft now (before a check, on leaving): small, and it must be there."""
        if self._save_timer is not None:
            self._save_timer.stop()
            self._save_timer = None
        state = self.state
        if not state.unsaved:
            return
        try:
            with self._save_lock:
                write_draft(self.data_dir, *self.draft_key, state.draft)
        except (OSError, ValueError) as error:
            if not leaving:
                self.state = state.save_failed(getattr(error, "strerror", None) or str(error))
            return
        if not leaving:  # on the way out the widgets are gone: nothing to draw
            self.state = state.saved(state.draft)

    def on_unmount(self) -> None:
        self._flush_save(leaving=True)
