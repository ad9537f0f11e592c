"""A runnable listing inside a lesson: the code (highlighted), Run and Edit, and what it printed.

A StateView of a ListingState (views/listing.py), drawn with the words of
render/listing.py. Runs go to a worker thread
(tui_course.listings.run: NumPy listings in the code sandbox, Keras ones in a child), so the
lesson scrolls and the editor types while a listing runs.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from tui_course.content.segments import ListingRunner, ListingSegment
from tui_course.listings.run import ListingResult, run_listing
from tui_course.render.listing import listing_caption, listing_text
from tui_course.ui.widgets.code_editor import CodeEditor, python_highlighting
from tui_course.ui.widgets.state_view import StateView
from tui_course.views.listing import ListingState

Runner = Callable[[str, ListingRunner], ListingResult]


class ListingView(StateView[ListingState], Vertical, can_focus=True):
    DEFAULT_CSS = """
    ListingView {
        height: auto;
    }
    ListingView CodeEditor {
        height: auto;
        border: none;
        padding: 0;
    }
    /* Read, the listing shows all its (wrapped) lines: the frame cannot scroll inside. */
    ListingView.-editing CodeEditor {
        max-height: 30;
    }
    ListingView CodeEditor:focus {
        border: none;
    }
    ListingView .listing-output {
        height: auto;
        margin-top: 1;
    }
    ListingView .listing-output.-empty {
        display: none;
    }
    """
    # its section in the help (screens/help.py)
    HELP_TITLE = "Runnable listing (in lessons: Tab to it)"
    HELP_RANK = 50
    BINDINGS = [
        Binding("ctrl+r,f5", "run", "Run", tooltip="Run the listing (its output shows under it)"),
        Binding("i", "edit", "Edit", tooltip="Edit the listing (Esc when done)"),
        Binding(
            "ctrl+n",
            "reset",
            "Reset",
            show=False,
            tooltip="Put the listing back as the lesson gives it",
        ),
    ]

    def __init__(
        self,
        listing: ListingSegment,
        *,
        may_edit: bool = True,
        runner: Runner = run_listing,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        state = ListingState.of(listing, may_edit=may_edit)
        super().__init__(state, name=name, id=id, classes=classes)
        self._runner = runner

    def compose(self) -> ComposeResult:
        editor = CodeEditor.code_editor(
            self.state.draft,
            language=python_highlighting(),
            read_only=True,
            soft_wrap=True,  # a lesson is read at 80 columns: no sideways scrolling of code
            classes="listing-code",
        )
        editor.can_focus = False  # Tab stops at the frame; e (or a click) edits
        yield editor
        yield Static(classes="listing-output -empty", markup=False)

    def draw(self, old: ListingState | None, new: ListingState) -> None:
        editor = self.query_one(CodeEditor)
        editor.read_only = not new.editing
        self.set_class(new.editing, "-editing")
        editor.can_focus = new.editing
        if editor.text != new.draft:  # a restore: undo brings the edit back
            editor.replace(new.draft, editor.document.start, editor.document.end)
        if old is not None and old.editing != new.editing:
            (editor if new.editing else self).focus()
        caption = listing_caption(new)
        if self.border_title != caption:
            self.border_title = caption
        subtitle = "Esc: done editing" if new.editing else ""
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle
        output = self.query_one(".listing-output", Static)
        text = listing_text(new)
        if old is None or text != listing_text(old):  # a keystroke must not lay out the lesson
            output.set_class(not text, "-empty")
            output.update(Text(text))
        if old is not None and old.result is not new.result:
            self.call_after_refresh(output.scroll_visible, animate=False)
        if old is None or (old.editing, old.edited) != (new.editing, new.edited):
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.state
        if action == "edit":
            return state.may_edit and not state.editing
        if action == "reset":
            return state.edited
        return True

    def action_run(self) -> None:
        state = self.state
        self.state, number = state.run_started()
        if number is not None:
            self._run(number, self.state.draft, state.listing.runner)

    @work(thread=True, group="listing-run")
    def _run(self, number: int, code: str, runner: ListingRunner) -> None:
        try:
            result = self._runner(code, runner)
        except Exception as error:  # the machinery failed, not the listing: say so
            from tui_course.listings.run import ListingOutcome

            result = ListingResult(ListingOutcome.UNAVAILABLE, detail=str(error)[:200])
        self.app.call_from_thread(self._finished, number, code, result)

    def _finished(self, number: int, code: str, result: ListingResult) -> None:
        if self.is_mounted:
            self.state = self.state.run_finished(number, code, result)

    def action_edit(self) -> None:
        self.state = self.state.edit()

    def action_reset(self) -> None:
        self.state = self.state.restored()

    def on_descendant_blur(self) -> None:
        """Leaving the editor (Esc, Tab, a click elsewhere) ends editing."""
        if self.state.editing and not self.query_one(CodeEditor).has_focus:
            self.state = self.state.stop_editing()

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.state = self.state.typed(event.text_area.text)

    @on(CodeEditor.Refused)
    def _refused(self, event: CodeEditor.Refused) -> None:
        event.stop()
        self.notify(event.message, severity="warning", timeout=5, markup=False)
