"""One meaning per key: every binding of every screen and widget, compared across the app."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

import tui_course.ui
from tui_course.ui.app import CourseApp
from tui_course.ui.screens.help import HelpScreen
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.pe_view import PEView
from tui_course.ui.widgets.quiz_view import QuizView
from tui_course.ui.widgets.real_model_view import RealModelView
from tui_course.ui.widgets.training_panel import TrainingPanel

MOVE_UP = frozenset(
    {"scroll_up", "cursor_up", "cursor(-1)", "move(-1)", "move_query(-1)", "select(-1)"}
    | {"command_list('cursor_up')"}
)
MOVE_DOWN = frozenset(
    {"scroll_down", "cursor_down", "cursor(1)", "move(1)", "move_query(1)", "select(1)"}
    | {"command_list('cursor_down')"}
)

# The only keys allowed to run different actions in different places, with the actions
# each may run. Every entry is one meaning carried out by the pane that has the focus.
SAME_MEANING: dict[str, frozenset[str]] = {
    # Up/Down and k/j move within the focused pane: scroll it, or move its highlight (the
    # outline item, a quiz option, the query word, the compared position, a palette entry).
    "up": MOVE_UP,
    "k": MOVE_UP,
    "down": MOVE_DOWN,
    "j": MOVE_DOWN,
    # Left/Right move sideways in the focused pane: scroll a wide figure, step to the
    # previous/next head of the real model; Right in a quiz steps on to the next question.
    "left": frozenset({"scroll_left", "move_head(-1)"}),
    # (A quiz has one binding per phase, so its footer names what the key does now.)
    "right": frozenset({"scroll_right", "move_head(1)", "next('asking')", "next('closed')"}),
    # Home/End go to the first/last line or item; PgUp/PgDn page, in the palette's list too.
    "home": frozenset({"scroll_home", "first"}),
    "end": frozenset({"scroll_end", "last"}),
    "pageup": frozenset({"page_up", "command_list('page_up')"}),
    "pagedown": frozenset({"page_down", "command_list('page_down')"}),
    # Enter does the highlighted or typed thing: open the outline item, submit in a quiz.
    "enter": frozenset({"select", "submit('intro')", "submit('asking')", "submit('closed')"}),
    # Esc goes back one step: out of the answer box, the help or the palette.
    "escape": frozenset({"back_out", "dismiss", "escape"}),
    # The help keys open help, and close it again when it is open.
    "f1": frozenset({"help", "dismiss"}),
    "question_mark": frozenset({"help", "dismiss"}),
    # q leaves what is in front: the help when it is open, otherwise the app.
    "q": frozenset({"quit", "dismiss"}),
    # Textual's copy: the screen copies selected text; with none selected it passes the key
    # on and the app says how to quit. One key, one behaviour.
    "ctrl+c": frozenset({"copy_text", "help_quit"}),
    # ctrl+r (or F5) runs the code in front: checks a code question, runs a lesson listing.
    "ctrl+r": frozenset({"check", "run"}),
    "f5": frozenset({"check", "run"}),
}


def project_classes() -> set[type[DOMNode]]:
    """Every screen and widget class defined in tui_course.ui, the app, and the screens
    Textual puts in front of it (the main screen, the command palette)."""
    found: set[type[DOMNode]] = {Screen, CommandPalette}
    for info in pkgutil.walk_packages(tui_course.ui.__path__, "tui_course.ui."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, DOMNode)
                and value.__module__ == module.__name__
                and not _a_text_box(value)
            ):
                found.add(value)
    return found


def _a_text_box(cls: type[DOMNode]) -> bool:
    """The code editor (a TextArea) and TextBox (an Input) add no keys of their own: their
    keys are a text box's, checked with the boxes below (mounted_widgets)."""
    from textual.widgets import Input, TextArea

    return issubclass(cls, (TextArea, Input)) and "BINDINGS" not in cls.__dict__


def plain_action(action: str) -> str:
    for namespace in ("app.", "screen."):
        action = action.removeprefix(namespace)
    return action


def key_meanings(classes: set[type[DOMNode]]) -> dict[str, dict[str, set[str]]]:
    """key -> action -> the classes where that key runs it (inherited bindings included)."""
    meanings: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for cls in classes:
        for key, bindings in cls._merge_bindings().key_to_bindings.items():
            for binding in bindings:
                meanings[key][plain_action(binding.action)].add(cls.__name__)
    return meanings


def conflicts(classes: set[type[DOMNode]]) -> list[str]:
    """Each key that does two different things (outside SAME_MEANING), or whose label in
    the footer/help differs between two of the project's own bindings for it."""
    found = []
    for key, actions in sorted(key_meanings(classes).items()):
        allowed = SAME_MEANING.get(key)
        if len(actions) > 1 and (allowed is None or not set(actions) <= allowed):
            uses = sorted(f"{action} in {sorted(names)}" for action, names in actions.items())
            found.append(f"{key}: " + "; ".join(uses))
    labels: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for cls in classes:
        if not cls.__module__.startswith("tui_course."):
            continue
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding):
                for key in binding.key.split(","):
                    labels[key.strip()][binding.description].add(cls.__name__)
    for key, described in sorted(labels.items()):
        if len(described) > 1 and key not in SAME_MEANING:
            found.append(f"{key} labelled " + " / ".join(sorted(described)))
    return found


def test_every_pane_is_gathered() -> None:
    classes = project_classes()
    panes = {CourseApp, HelpScreen, Outline, LessonView, QuizView, AttentionView, PEView}
    assert panes | {RealModelView, TrainingPanel} <= classes


def test_no_key_means_two_things() -> None:
    assert conflicts(project_classes()) == []


def test_the_check_catches_a_second_meaning() -> None:
    class PagesOnSpace(Widget):
        BINDINGS = [Binding("space", "page_down", "Page down")]

    class ShowsOnV(Widget):
        BINDINGS = [Binding("v", "toggle_view", "View")]

    classes = project_classes()
    assert conflicts(classes | {PagesOnSpace}) == [
        "space: page_down in ['PagesOnSpace']; toggle_option in ['QuizView']"
    ]
    assert [line.split(":")[0] for line in conflicts(classes | {ShowsOnV})] == ["v"]


def test_the_keys_that_used_to_clash_now_mean_one_thing() -> None:
    meanings = key_meanings(project_classes())
    assert dict(meanings["space"]) == {"toggle_option": {"QuizView"}}
    assert dict(meanings["v"]) == {"reveal": {"QuizView"}}
    assert dict(meanings["n"]) == {"next_item": {"CourseScreen"}}
    assert dict(meanings["left_square_bracket"]) == {"dim(-2)": {"PEView"}}
    assert dict(meanings["greater_than_sign"]) == {"move_layer(1)": {"RealModelView"}}


# Textual's widgets the panes mount (answer and sentence boxes, the training form, lesson
# prose and figures): the gathering above sees only the project's own classes.


def mounted_widgets() -> set[type[DOMNode]]:
    from textual.containers import HorizontalScroll, VerticalScroll
    from textual.widgets import Button, Checkbox, Input, Markdown, OptionList, Select, TextArea
    from textual.widgets._markdown import MarkdownFence
    from textual.widgets._select import SelectCurrent, SelectOverlay

    return {
        *(Button, Checkbox, Input, Markdown, OptionList, Select, SelectCurrent, SelectOverlay),
        TextArea,  # the code editor and the runnable listings
        *(HorizontalScroll, VerticalScroll, MarkdownFence),
    }


# What those widgets add, each the same meaning in the box or list that has the focus:
# the text cursor moves (left/right/home/end, shift to select), Enter submits or presses,
# Space and Enter open a drop-down or tick a box (as Space ticks a quiz option), copy copies.
IN_A_BOX: dict[str, frozenset[str]] = {
    "left": frozenset({"cursor_left"}),
    "right": frozenset({"cursor_right"}),
    "home": frozenset({"home"}),
    "end": frozenset({"end"}),
    "shift+home": frozenset({"home(True)", "command_list('first')"}),
    "shift+end": frozenset({"end(True)", "command_list('last')"}),
    "enter": frozenset({"press", "show_overlay", "toggle_button", "submit"}),  # Input: submit
    "space": frozenset({"show_overlay", "toggle_button", "toggle_option"}),
    "up": frozenset({"show_overlay"}),
    "down": frozenset({"show_overlay"}),
    "ctrl+c": frozenset({"copy"}),
    "super+c": frozenset({"copy", "copy_text"}),
    # In a training-form box ctrl+x cuts; while a run goes on, the panel's priority binding
    # stops it instead (training_panel.py): the key never cuts during a run.
    "ctrl+x": frozenset({"cut", "cancel"}),
}


# The code editor (Textual's TextArea) edits as an answer box does, under its own action
# names: line start/end, word moves and deletes, page moves. (Textual itself gives
# alt/ctrl+backspace two directions: its Input deletes the word right, its TextArea left.)
IN_THE_EDITOR: dict[str, frozenset[str]] = {
    "ctrl+a": frozenset({"home", "cursor_line_start"}),
    "home": frozenset({"cursor_line_start"}),
    "shift+home": frozenset({"cursor_line_start(True)"}),
    "ctrl+e": frozenset({"end", "cursor_line_end"}),
    "end": frozenset({"cursor_line_end"}),
    "shift+end": frozenset({"cursor_line_end(True)"}),
    "ctrl+left": frozenset({"cursor_left_word", "cursor_word_left"}),
    "ctrl+right": frozenset({"cursor_right_word", "cursor_word_right"}),
    "ctrl+shift+left": frozenset({"cursor_left_word(True)", "cursor_word_left(True)"}),
    "ctrl+shift+right": frozenset({"cursor_right_word(True)", "cursor_word_right(True)"}),
    "ctrl+w": frozenset({"delete_left_word", "delete_word_left"}),
    "ctrl+u": frozenset({"delete_left_all", "delete_to_start_of_line"}),
    "super+backspace": frozenset({"delete_left_all", "delete_to_start_of_line"}),
    "ctrl+k": frozenset({"delete_right_all", "delete_to_end_of_line_or_delete_line"}),
    "alt+backspace": frozenset({"delete_right_word", "delete_word_left"}),
    "ctrl+backspace": frozenset({"delete_right_word", "delete_word_left"}),
    "pageup": frozenset({"cursor_page_up"}),
    "pagedown": frozenset({"cursor_page_down"}),
    # Shift+Up/Down select in the editor; in the quiz view they move the picked line of an
    # order question, which shows no editor (ctrl+Up/Down do the same there).
    "shift+up": frozenset({"cursor_up(True)", "carry(-1)"}),
    "shift+down": frozenset({"cursor_down(True)", "carry(1)"}),
}


def test_widgets_inside_the_panes_add_no_second_meaning() -> None:
    tables = (SAME_MEANING, IN_A_BOX, IN_THE_EDITOR)
    allowed = {
        key: frozenset().union(*(table.get(key, frozenset()) for table in tables))
        for key in SAME_MEANING.keys() | IN_A_BOX.keys() | IN_THE_EDITOR.keys()
    }
    clashes = [
        f"{key}: {sorted(actions)}"
        for key, actions in sorted(key_meanings(project_classes() | mounted_widgets()).items())
        if len(actions) > 1 and not set(actions) <= allowed.get(key, frozenset())
    ]
    assert clashes == []
