"""A student writes and checks code in the app, and runs a lesson's listings: on a small
fixture course (one code question, two listings), with the real sandbox."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Static, TextArea

from tests.conftest import REPO
from tests.ui.conftest import running, screen_text, shown_with
from tests.ui.conftest import until as until_held
from tui_course.content.session import Phase
from tui_course.listings import run as listings
from tui_course.progress.drafts import read_draft
from tui_course.render import quiz as render_quiz
from tui_course.runtime.terminal import ASCII_ENV
from tui_course.sandbox.limits import TEST_LIMITS
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets import code_exercise
from tui_course.ui.widgets.code_editor import CodeEditor
from tui_course.ui.widgets.code_exercise import CodeExerciseView
from tui_course.ui.widgets.listing_view import ListingView
from tui_course.ui.widgets.quiz_view import QuizView
from tui_course.views.code_exercise import CodePhase

COURSE = REPO / "tests" / "fixtures" / "code_course"
SOLUTION = "def double(x):\n    return 2 * x\n"


@pytest.fixture(autouse=True)
def short_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_exercise, "CHECK_LIMITS", TEST_LIMITS)


CHECK_ROUNDS = 3000  # a check runs a real sandboxed child: more rounds than a repaint


async def until(pilot: Pilot[Any], done: Callable[[], bool]) -> None:
    """Wait for a condition (a check, a save), never for a fixed time (the UI tests' own
    rounds of conftest.until, with room for a sandboxed check on a busy machine)."""
    assert await until_held(pilot, done, rounds=CHECK_ROUNDS), "the condition never held"


async def open_exercise(pilot: Pilot[Any]) -> CodeExerciseView:
    await pilot.press("enter")  # the quiz's intro: start
    app = pilot.app
    await until(pilot, lambda: bool(app.query(CodeExerciseView)))
    view = app.query_one(CodeExerciseView)
    # keys count from the frame after the editor shows with the focus (earlier ones are
    # dropped by design: they were meant for the quiz)
    await until(
        pilot,
        lambda: view.has_editor and view.editor.has_focus and view.editor.taking_keys,
    )
    return view


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Typed as written: the indentation Enter puts on a new line is deleted first."""
    keys = {" ": "space"}
    for number, line in enumerate(text.split("\n")):
        if number:
            await pilot.press("enter")
            editor = pilot.app.focused
            if isinstance(editor, TextArea):
                await pilot.press(*["backspace"] * editor.cursor_location[1])
        await pilot.press(*[keys.get(char, char) for char in line])


async def write_solution(pilot: Pilot[Any], view: CodeExerciseView, code: str) -> None:
    await pilot.press("f7")  # TextArea: select all, then type over it
    await type_text(pilot, code)
    await until(pilot, lambda: view.state is not None and view.state.draft == code)


def ran(listing: ListingView) -> bool:
    return listing.state is not None and listing.state.result is not None


def checked(view: CodeExerciseView) -> bool:
    return view.state is not None and view.state.verdict is not None and not view.state.checking


WRONG_DOUBLE = "def double(x):\n    return 3 * x\n"


async def wrong_answer_checked(pilot: Pilot[Any]) -> CodeExerciseView:
    """The exercise opened, a wrong `double` written and checked, its verdict drawn."""
    view = await open_exercise(pilot)
    await write_solution(pilot, view, WRONG_DOUBLE)
    await pilot.press("ctrl+r")
    await until(pilot, lambda: checked(view))
    await pilot.pause()
    return view


async def test_typing_and_checking_puts_the_verdict_and_the_solution_on_screen(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        assert "raise NotImplementedError" in view.editor.text
        await write_solution(pilot, view, WRONG_DOUBLE)
        await pilot.press("ctrl+r")
        quiz = app.query_one(QuizView)
        await until(pilot, lambda: quiz.session is not None and quiz.session.state.tries_used == 1)
        screen = await shown_with(
            pilot, "That is three times x", "Not yet (1 check): fix it and check again."
        )
        assert "That is three times x" in screen  # the recognised mistake's feedback
        assert "Not yet (1 check): fix it and check again." in screen
        assert "A model solution" not in screen
        await write_solution(pilot, view, SOLUTION)
        await pilot.press("f5")
        await until(pilot, lambda: view.state is not None and view.state.phase is CodePhase.PASSED)
        screen = await shown_with(pilot, "A model solution (yours passed", "PASSED", "Correct.")
        assert "PASSED" in screen and "Correct." in screen
        assert "A model solution (yours passed" in screen
        # the pass closed the question while the student may still be typing: the keys
        # stay in the editor, so the next letters are not commands (n: next item)
        assert view.editor.has_focus
        await pilot.press("n")
        await pilot.pause()
        assert app.current is not None and app.current.id == "code"
        assert quiz.run is not None
        assert render_quiz.keys(quiz.run) == ["Esc, then Enter or Right: next question"]


async def test_the_verdict_lays_itself_out_again_when_the_screen_resizes(
    build_app: Callable[..., CourseApp],
) -> None:
    """Side by side where the two arrays fit, stacked once the screen is narrower: the
    verdict is a renderable worded for the width it gets, not text wrapped at one width."""

    def side_by_side() -> bool:
        lines = screen_text(app).splitlines()
        return any("your result" in line and "expected result" in line for line in lines)

    def stacked() -> bool:  # both shown, on lines of their own (a frame mid-layout has neither)
        lines = screen_text(app).splitlines()
        return any("expected result" in line for line in lines) and not side_by_side()

    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        await wrong_answer_checked(pilot)
        assert side_by_side()
        await pilot.resize_terminal(44, 40)
        await until(pilot, stacked)
        assert max(len(line.rstrip()) for line in screen_text(app).splitlines()) <= 44
        await pilot.resize_terminal(80, 40)
        await until(pilot, side_by_side)


async def test_enter_keeps_the_indentation_and_adds_a_level_after_a_colon(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        await pilot.press("f7")  # select all: typed over
        keys = {" ": "space", "\n": "enter"}
        typed = "def f(x):\nif x:  # positive\nreturn 1\ny = 2\n"
        await pilot.press(*[keys.get(char, char) for char in typed])
        await until(pilot, lambda: view.state is not None and "y = 2" in view.state.draft)
        assert view.editor.text == (
            "def f(x):\n    if x:  # positive\n        return 1\n        y = 2\n        "
        )
        await pilot.press("backspace")  # one character, not one level
        assert view.editor.text.endswith("y = 2\n       ")


async def test_keys_pressed_while_the_question_opens_do_not_edit_the_code(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first code question takes a moment to open (imports, the editor's first paint):
    a second Enter (or a letter) pressed before the editor shows must not land in the code.
    The keys are pressed while the editor paints its first line, as a student's are."""
    app = build_app("code", content=COURSE)
    painting = CodeEditor.render_line
    pressed: list[str] = []

    def press_while_painting(editor: CodeEditor, y: int) -> Strip:
        if not pressed:
            pressed.extend(["enter", "x"])
            app.post_message(events.Key("enter", "\r"))
            app.post_message(events.Key("x", "x"))
        return painting(editor, y)

    monkeypatch.setattr(CodeEditor, "render_line", press_while_painting)
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        await pilot.pause()
        assert pressed
        starter = "import numpy as np\n\n\ndef double(x):\n    raise NotImplementedError\n"
        assert view.editor.text == starter
        assert view.state is not None and view.state.draft == starter
        await pilot.press("y")  # once it shows, keys type
        await until(pilot, lambda: view.editor.text != starter)
        assert view.editor.text == "y" + starter


async def test_the_quiz_offers_its_keys_while_the_editor_is_still_being_built(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A footer drawn while the first code question mounts asks the quiz which keys work,
    before the view has an editor: that must answer, not crash the app."""
    app = build_app("code", content=COURSE)
    composing = CodeExerciseView.compose
    answers: list[bool | None] = []

    def ask_while_composing(view: CodeExerciseView) -> Any:
        answers.append(app.query_one(QuizView).check_action("submit", ()))
        return composing(view)

    monkeypatch.setattr(CodeExerciseView, "compose", ask_while_composing)
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        assert answers == [True]  # no editor yet: Enter still submits
        assert app.query_one(QuizView).check_action("submit", ()) is False  # Enter types
        assert view.typing


async def test_the_draft_survives_the_app_and_comes_back(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    typed = "def double(x):\n    return x + x  # mine\n"
    app = build_app("code", content=COURSE, data=data)
    async with running(app) as pilot:
        view = await open_exercise(pilot)
        await write_solution(pilot, view, typed)
        await until(pilot, lambda: read_draft(data, "code", 1) == typed)
    # a fresh app on the same data folder: what a kill -9 or a dropped connection leaves
    again = build_app("code", content=COURSE, data=data)
    async with running(again) as pilot:
        view = await open_exercise(pilot)
        assert view.editor.text == typed


async def test_reset_asks_first_then_brings_back_the_starter(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app) as pilot:
        view = await open_exercise(pilot)
        starter = view.editor.text
        await write_solution(pilot, view, "x = 1\n")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert "Replace your code with the starter?" in screen_text(app)
        assert view.editor.text == "x = 1\n"
        await pilot.press("ctrl+n")
        await until(pilot, lambda: view.editor.text == starter)
        await pilot.press("ctrl+z")  # undo brings the draft back
        await until(pilot, lambda: view.editor.text == "x = 1\n")


async def test_reveal_shows_the_solution_and_hints_work_outside_the_editor(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        view = await open_exercise(pilot)
        await pilot.press("escape")  # out of the editor: the quiz's own keys
        assert not view.editor.has_focus
        await pilot.press("h")
        assert "Multiply by 2." in await shown_with(pilot, "Multiply by 2.")
        await pilot.press("v")
        await until(pilot, lambda: view.state is not None and view.state.solution_visible)
        screen = await shown_with(
            pilot, "Answer shown (recorded as revealed).", "A model solution:", "return 2 * x"
        )
        assert "Answer shown (recorded as revealed)." in screen
        assert "A model solution:" in screen and "return 2 * x" in screen


async def test_hostile_code_is_stopped_while_typing_goes_on(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        view = await open_exercise(pilot)
        hostile = (
            "print('\\x1b]52;c;aGVsbG8=\\x07\\x1b]0;pwned\\x07' + 'x' * 10**6)\n"
            "def double(x):\n"
            "    while True:\n"
            "        pass\n"
        )
        await write_solution(pilot, view, hostile)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: view.state is not None and view.state.checking is not None)
        await type_text(pilot, "# still typing")
        state = view.state
        assert state is not None and state.phase is CodePhase.CHECKING  # the check goes on
        assert state.draft.endswith("# still typing")  # and every key landed
        await until(pilot, lambda: checked(view))
        screen = await shown_with(pilot, "TIME LIMIT", "before your last edits")
        assert "TIME LIMIT" in screen
        assert "\x1b" not in str(view.query_one(".code-verdict").render())
        assert "before your last edits" in screen


async def test_a_listing_runs_in_the_sandbox_and_a_keras_one_says_what_to_install(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        listings.importlib.util,
        "find_spec",
        lambda name, *args: None if name in ("keras", "tensorflow") else real(name, *args),
    )
    app = build_app("listings", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        await until(pilot, lambda: len(app.query(ListingView)) == 2)
        numpy_listing, keras_listing = app.query(ListingView)
        numpy_listing.focus()
        await pilot.press("ctrl+r")
        await until(pilot, lambda: ran(numpy_listing))
        keras_listing.focus()
        await pilot.press("ctrl+r")
        await until(pilot, lambda: ran(keras_listing))
        screen = await shown_with(
            pilot, "Cannot run: Keras is not installed here", "[0 2 4]", "Ran in"
        )
        assert "[0 2 4]" in screen and "Ran in" in screen
        assert "Cannot run: Keras is not installed here" in screen
        said = str(keras_listing.query_one(".listing-output").render())
        assert said.endswith("cannot run: pip install 'attn-tui[train]'")


async def test_a_listing_edits_and_runs_the_edit(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("listings", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        await until(pilot, lambda: len(app.query(ListingView)) == 2)
        listing = app.query(ListingView).first()
        listing.focus()
        await pilot.press("i")
        await until(pilot, lambda: listing.state is not None and listing.state.editing)
        await pilot.press("f7")
        await type_text(pilot, "print(7 * 6)\n")
        await pilot.press("escape", "ctrl+r")
        await until(pilot, lambda: ran(listing))
        await pilot.pause()
        assert "42" in screen_text(app)
        assert listing.state is not None and not listing.state.editing


async def test_the_check_key_is_in_the_footer_and_in_help_while_typing(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("code", content=COURSE)
    async with running(app, size=(100, 30)) as pilot:
        await open_exercise(pilot)

        def footer() -> str:
            return screen_text(app).splitlines()[-1]

        # the footer draws the editor's keys in the frame after the editor takes focus
        await until(pilot, lambda: "^r Check" in footer())
        assert "^r Check" in footer() and "^n Reset" in footer()
        await pilot.press("f1")
        await pilot.pause()
        from tui_course.ui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        shown = screen_text(app)
        assert "Code question" in shown and "(focused)" in shown
        assert "ctrl+r / f5" in shown and "Check your code" in shown


@pytest.mark.parametrize("forced", [False, True])
async def test_editor_key_only_where_the_student_has_a_shell(
    build_app: Callable[..., CourseApp],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    forced: bool,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(config))
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.delenv("VISUAL", raising=False)
    if forced:
        monkeypatch.setenv("SSH_ORIGINAL_COMMAND", "attn-tui")
    else:
        monkeypatch.delenv("SSH_ORIGINAL_COMMAND", raising=False)
    app = build_app("code", content=COURSE)
    async with running(app, size=(120, 30)) as pilot:
        view = await open_exercise(pilot)
        await until(pilot, lambda: "^r Check" in screen_text(app).splitlines()[-1])
        footer = screen_text(app).splitlines()[-1]
        assert ("^o $EDITOR" in footer) is not forced
        assert view.editor_allowed is not forced


async def test_the_editor_works_without_tree_sitter(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(code_exercise, "python_highlighting", lambda: None)
    app = build_app("code", content=COURSE)
    async with running(app) as pilot:
        view = await open_exercise(pilot)
        assert view.editor.language is None  # plain text, same keys
        await write_solution(pilot, view, SOLUTION)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: view.state is not None and view.state.phase is CodePhase.PASSED)


def snapshot_while_the_editor_is_built(
    app: CourseApp, monkeypatch: pytest.MonkeyPatch, keys: tuple[str, ...] = ()
) -> list[str]:
    """The screen as it stands when the editor starts being built (and `keys` pressed
    then, as a student's are while it opens)."""
    build = CodeEditor.code_editor.__func__  # type: ignore[attr-defined]
    screens: list[str] = []

    def building(cls: type[CodeEditor], *args: Any, **kwargs: Any) -> CodeEditor:
        if not screens:
            screens.append(screen_text(app))
            for key in keys:
                app.post_message(events.Key(key, key))
        editor: CodeEditor = build(cls, *args, **kwargs)
        return editor

    monkeypatch.setattr(CodeEditor, "code_editor", classmethod(building))
    return screens


@pytest.mark.parametrize(("ascii_only", "dots"), [(False, "\u2026"), (True, "...")])
async def test_the_question_says_the_editor_is_opening_until_it_takes_keys(
    build_app: Callable[..., CourseApp],
    monkeypatch: pytest.MonkeyPatch,
    ascii_only: bool,
    dots: str,
) -> None:
    if ascii_only:
        monkeypatch.setenv(ASCII_ENV, "1")
    app = build_app("write-double")
    screens = snapshot_while_the_editor_is_built(app, monkeypatch)
    async with running(app, size=(80, 24)) as pilot:
        view = await open_exercise(pilot)
        assert len(screens) == 1
        opening = screens[0]
        assert "Write double(x)" in opening  # the question is on screen, its editor not yet
        assert f"Opening the editor{dots} wait for it" in opening
        assert opening.isascii() or not ascii_only
        await pilot.pause()
        assert view.state is not None and not view.state.opening
        assert "Opening the editor" not in screen_text(app)


async def test_keys_pressed_while_the_editor_opens_are_said_not_typed_nor_taken_by_the_quiz(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """h and v are the quiz's hint and reveal keys: pressed while the editor is opening
    they must neither edit the code nor act on the quiz, and the student is told."""
    app = build_app("write-double")
    snapshot_while_the_editor_is_built(app, monkeypatch, keys=("h", "v"))
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        starter = "import numpy as np\n\n\ndef double(x):\n    raise NotImplementedError\n"
        await until(pilot, lambda: view.state is not None and view.state.not_typed == 2)
        screen = await shown_with(pilot, "2 keys pressed then were not typed.")
        assert "The editor was still opening: 2 keys pressed then were not typed." in screen
        assert view.editor.text == starter
        quiz = app.query_one(QuizView)
        assert quiz.run is not None and quiz.run.phase is Phase.ASKING  # not revealed
        assert "Multiply by 2." not in screen  # no hint taken
        await pilot.press("y")  # once it is open, keys type; what was lost is still said
        await until(pilot, lambda: view.editor.text == "y" + starter)
        await pilot.pause()
        assert "2 keys pressed then were not typed" in screen_text(app)


async def test_the_sandbox_warning_shows_once_the_checker_has_started(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker starts in a thread after the question shows; its warning still comes."""
    from tui_course.codecheck.service import CodeChecker

    monkeypatch.setattr(CodeChecker, "warning", property(lambda self: "Checks are not boxed."))
    app = build_app("write-double")
    async with running(app, size=(80, 30)) as pilot:
        await open_exercise(pilot)
        await until(pilot, lambda: "Checks are not boxed." in screen_text(app))


async def test_esc_while_the_editor_opens_is_not_held_back_and_the_opening_line_ends(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc is not held back (nor counted as not typed): the keys go where Esc sends them
    (the outline), and the view stops saying the editor is opening."""
    app = build_app("write-double")
    snapshot_while_the_editor_is_built(app, monkeypatch, keys=("escape",))
    async with running(app, size=(80, 30)) as pilot:
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.query(CodeExerciseView)))
        view = app.query_one(CodeExerciseView)
        await until(pilot, lambda: view.has_editor and view.state is not None)
        await until(pilot, lambda: view.state is not None and not view.state.opening)
        assert not view.editor.has_focus
        assert view.state is not None and view.state.not_typed == 0


async def test_esc_pressed_while_opening_but_delivered_after_the_editor_took_focus(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race a busy machine shows: Esc is pressed while the editor is built, and reaches
    the app only after the new editor took the focus. It is still the view's Esc (to the
    outline), not a key dropped by the editor, and the editor does not keep the keys."""
    app = build_app("write-double")
    build = CodeEditor.code_editor.__func__  # type: ignore[attr-defined]
    pressed: list[events.Key] = []

    def building(cls: type[CodeEditor], *args: Any, **kwargs: Any) -> CodeEditor:
        pressed.append(events.Key("escape", None))  # stamped now, while it opens
        editor: CodeEditor = build(cls, *args, **kwargs)
        return editor

    monkeypatch.setattr(CodeEditor, "code_editor", classmethod(building))
    async with running(app, size=(80, 30)) as pilot:
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.query(CodeEditor)))
        view = app.query_one(CodeExerciseView)
        await until(pilot, lambda: view.editor.has_focus)
        assert pressed and pressed[0].time < (view.editor._keys_from or float("inf"))
        app.post_message(pressed[0])
        await until(pilot, lambda: not view.editor.has_focus and app.focused is not view)
        assert view.state is not None and view.state.not_typed == 0
        await until(pilot, lambda: view.state is not None and not view.state.opening)


@pytest.mark.parametrize(("size", "rows"), [((80, 24), 14), ((40, 12), 7), ((200, 60), 14)])
async def test_the_editor_takes_at_most_six_tenths_of_a_short_terminal(
    build_app: Callable[..., CourseApp], size: tuple[int, int], rows: int
) -> None:
    """14 rows where they fit; on a 12-row terminal a 14-row editor was taller than the
    screen, and the lines under it (what was not typed, the verdict) never showed beside it."""
    app = build_app("code", content=COURSE)
    async with running(app, size=size) as pilot:
        view = await open_exercise(pilot)
        await until(pilot, lambda: view.editor.outer_size.height > 0)
        assert view.editor.outer_size.height == rows


async def test_a_listings_changes_in_one_turn_are_one_draw_of_the_last(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edit, type and reset in one turn (a paste, then ctrl+n): one draw, of the listing as
    the lesson gives it, in the editor and in the caption."""
    from tui_course.ui.widgets import listing_view
    from tui_course.views.listing import ListingState

    captions: list[str] = []
    caption_of = listing_view.listing_caption

    def counted(state: ListingState) -> str:
        captions.append(caption_of(state))
        return captions[-1]

    monkeypatch.setattr(listing_view, "listing_caption", counted)
    app = build_app("listings", content=COURSE)
    async with running(app, size=(80, 40)) as pilot:
        await until(pilot, lambda: len(app.query(ListingView)) == 2)
        listing = app.query(ListingView).first()
        await pilot.pause()
        shipped, drawn = listing.state, len(captions)
        editing = shipped.edit()
        listing.state = editing
        listing.state = editing.typed("print('pasted')")
        listing.state = listing.state.restored()
        await pilot.pause()
        assert len(captions) == drawn + 1
        assert listing.state.editing and not listing.state.edited
        assert listing.query_one(CodeEditor).text == shipped.draft
        assert listing.border_title == captions[-1] and listing.has_class("-editing")


async def test_a_sandbox_that_cannot_start_is_said_above_the_editor_from_the_state(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker's start runs in a thread; what it says joins the view's state (it was
    written into the widget beside the state, and no test saw it on screen)."""
    from tui_course.codecheck.service import CodeChecker

    def no_sandbox(self: CodeChecker, question: object) -> None:
        raise RuntimeError("bubblewrap cannot make a namespace here")

    monkeypatch.setattr(CodeChecker, "prepare", no_sandbox)
    app = build_app("code", content=COURSE)
    async with running(app, size=(80, 30)) as pilot:
        view = await open_exercise(pilot)
        await until(pilot, lambda: bool(view.state.warning))
        await pilot.pause()
        said = "The sandbox could not start: bubblewrap cannot make a namespace here"
        assert view.state.warning == said
        warning = view.query_one(".code-warning", Static)
        assert str(warning.render()) == said and not warning.has_class("-empty")
        await type_text(pilot, "# a key")
        await pilot.pause()
        assert str(warning.render()) == said  # a keystroke's draw leaves it as it is
