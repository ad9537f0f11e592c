"""The help screen: columns side by side from 80 wide, one scrolling column below, complete."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from tests.ui.conftest import running, shown, until
from tui_course.ui.app import CourseApp
from tui_course.ui.screens.course import CourseScreen
from tui_course.ui.screens.help import (
    EVERYWHERE,
    HelpScreen,
    column_count,
    help_panes,
    key_label,
    split_columns,
)
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.code_exercise import CodeExerciseView
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.listing_view import ListingView
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.pe_view import PEView
from tui_course.ui.widgets.quiz_view import QuizView
from tui_course.ui.widgets.real_model_view import RealModelView
from tui_course.ui.widgets.training_panel import TrainingPanel


async def open_help(pilot: Pilot[None]) -> HelpScreen:
    await pilot.press("f1")
    screen = pilot.app.screen
    assert isinstance(screen, HelpScreen)
    return screen


def title_positions(screen: HelpScreen, text: str) -> dict[str, tuple[int, int]]:
    """Where each section title in view starts (row, column): read off the screen's text at
    the place its widget sits, so a title drawn elsewhere (or hidden) is not counted."""
    lines = text.splitlines()
    box = screen.query_one("#help-box").region
    found: dict[str, tuple[int, int]] = {}
    for title in screen.query(".help-title").results(Static):
        x, y = title.region.x, title.region.y
        if not box.y < y < box.bottom - 1:
            continue  # scrolled out of the box
        name = str(title.render())
        head = name[:12]  # a long title wraps in a narrow column
        assert lines[y][x : x + len(head)] == head, (name, lines[y])
        found[name] = (y, x)
    return found


def test_column_count_follows_the_width() -> None:
    assert [column_count(w) for w in (40, 79, 80, 119, 120, 159, 160, 200)] == [
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        4,
    ]


def test_split_columns_heads_the_columns_with_the_first_sections() -> None:
    assert split_columns([10, 2, 2, 2, 2, 2], 2) == [[0], [1, 2, 3, 4, 5]]
    assert split_columns([3, 3, 3, 3], 2) == [[0, 2], [1, 3]]
    assert split_columns([5, 1, 1, 9, 1], 3) == [[0], [1, 3], [2, 4]]
    assert split_columns([5, 1], 4) == [[0], [1]]  # never more columns than sections
    assert split_columns([4, 4], 1) == [[0, 1]]
    assert split_columns([], 2) == []


async def test_at_80x24_sections_sit_side_by_side_above_the_fold(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        screen = await open_help(pilot)
        assert screen.columns == 2
        text = await shown(pilot)
        where = title_positions(screen, text)
        columns = sorted({column for _, column in where.values()})
        assert len(columns) == 2 and columns[1] - columns[0] >= 30, where
        left = [title for title, (_, column) in where.items() if column == columns[0]]
        right = [title for title, (_, column) in where.items() if column == columns[1]]
        assert left and right
        # The focused pane's keys come first, then the keys that work everywhere.
        assert screen.sections[0][0] == "Lesson (focused)"
        assert (left[0], right[0]) == ("Lesson (focused)", "Everywhere")
        assert where["Lesson (focused)"][0] == where["Everywhere"][0] == 1  # under the border


async def test_descriptions_wrap_in_their_own_column(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        await open_help(pilot)
        lines = (await shown(pilot)).splitlines()
        start = next(i for i, line in enumerate(lines) if "Back: leave the" in line)
        column = lines[start].index("Back: leave the")
        keys = lines[start].rindex("Esc", 0, column)  # the keys, then the description
        assert lines[start][keys + 3 : column].strip() == ""
        continuation = lines[start + 1]  # too long for a 36-cell column: it wraps
        assert continuation[keys:column].strip() == "" and continuation[column] != " "
        assert continuation[keys - 2 : keys] == "  "  # the section's own indent


async def test_at_40x12_one_column_that_scrolls_to_the_end(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(40, 12)) as pilot:
        screen = await open_help(pilot)
        assert screen.columns == 1
        lines = (await shown(pilot)).splitlines()
        assert lines[0].startswith("╭─ Keys") and len(lines[0].rstrip()) == 40
        box = screen.query_one("#help-box", VerticalScroll)
        assert box.has_focus and box.max_scroll_y > 0
        columns: set[int] = set()
        seen = ""
        for _ in range(40):  # page through: every title is at the same column
            text = await shown(pilot)
            seen += text
            columns |= {column for _, column in title_positions(screen, text).values()}
            if box.scroll_y >= box.max_scroll_y:
                break
            before = box.scroll_y
            await pilot.press("pagedown")
            await pilot.pause()
            assert box.scroll_y > before
        assert columns == {2}
        assert "Outline marks" in seen and "lesson read to its end" in seen
        assert text.splitlines()[-2].split()[1] == "rows."  # the footnote ends the last page
        await pilot.press("q")
        assert not isinstance(app.screen, HelpScreen) and app.is_running


async def test_at_200x60_everything_fits_in_four_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(200, 60)) as pilot:
        screen = await open_help(pilot)
        assert screen.columns == 4
        box = screen.query_one("#help-box", VerticalScroll)
        assert box.max_scroll_y == 0
        text = await shown(pilot)
        where = title_positions(screen, text)
        assert set(where) == {title for title, _ in screen.sections}  # all in view
        assert len({column for _, column in where.values()}) == 4
        assert screen.sections[0][0] == "Quiz (focused)"


async def test_resizing_the_terminal_changes_the_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        screen = await open_help(pilot)
        for size, columns in (((40, 12), 1), ((130, 30), 3), ((80, 24), 2)):
            await pilot.resize_terminal(*size)

            def laid_out_in(wanted: int = columns) -> bool:
                """Recomposed for the new width, and the new box given focus (a tick after)."""
                box = screen.query("#help-box")
                return (
                    screen.columns == wanted
                    and len(screen.query(".help-column")) == wanted
                    and bool(box)
                    and box.first().has_focus
                )

            await until(pilot, laid_out_in)
            assert screen.columns == columns
            assert len(screen.query(".help-column")) == columns
            assert screen.query_one("#help-box").has_focus  # the keys still scroll it
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_help_has_every_binding_and_closes_with_each_of_its_keys(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attention-lab")
    async with running(app, size=(80, 24)) as pilot:
        panes = (
            CourseApp,
            CourseScreen,
            Outline,
            LessonView,
            QuizView,
            AttentionView,
            PEView,
            RealModelView,
            TrainingPanel,
            CodeExerciseView,
            ListingView,
        )
        await pilot.press("escape")  # out of the lab's text box, onto the figure
        for close in ("escape", "q", "f1", "question_mark"):
            screen = await open_help(pilot)
            assert screen.sections[0][0].startswith("Attention figure") and (
                screen.sections[0][0].endswith("(focused)")
            )
            listed = {keys for _, rows in screen.sections for keys, _ in rows}
            listed |= {key for keys in set(listed) for key in keys.split(" / ")}
            for pane in panes:
                for binding in pane.BINDINGS:
                    assert isinstance(binding, Binding)
                    if binding.action.startswith("pick("):
                        assert "1-9" in listed
                        continue
                    if binding.action == "external_editor":
                        continue  # listed only where $EDITOR can open (the test below)
                    label = key_label(binding.key)
                    assert all(key in listed for key in label.split(" / ")), label
                    assert (binding.tooltip or binding.description) in screen.text
            await pilot.press(close)
            assert not isinstance(app.screen, HelpScreen) and app.is_running, close


async def test_ctrl_o_is_listed_only_where_it_opens_an_editor(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    editor_line = "Edit the code in your $EDITOR"
    monkeypatch.setenv("EDITOR", "vi")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("SSH_ORIGINAL_COMMAND", raising=False)
    async with running(build_app(), size=(80, 24)) as pilot:
        screen = await open_help(pilot)
        assert editor_line in screen.text
    monkeypatch.setenv("SSH_ORIGINAL_COMMAND", "attn-tui")  # the lab recipe's forced command
    async with running(build_app(), size=(80, 24)) as pilot:
        screen = await open_help(pilot)
        assert editor_line not in screen.text
        assert "Reset to the starter code" in screen.text  # the rest of the pane is still there


def test_every_class_with_keys_of_its_own_has_a_help_section() -> None:
    """The help lists the panes that name a section (HELP_TITLE beside their BINDINGS):
    a widget given keys without one would have keys no help shows."""
    from tests.ui.test_keys import project_classes

    panes = help_panes()
    modals = {"HelpScreen", "DoctorScreen"}  # their keys close them, and they say so
    with_keys = {
        cls
        for cls in project_classes()
        if cls.__module__.startswith("tui_course.")
        and cls.__dict__.get("BINDINGS")
        and cls.__name__ not in modals
    }
    assert with_keys - set(panes) == {CourseApp, CourseScreen}  # the "Everywhere" keys
    titles = [pane.__dict__["HELP_TITLE"] for pane in panes]
    assert len(set(titles)) == len(titles) and EVERYWHERE not in titles
    assert titles[:3] == ["Outline", "Lesson", "Quiz"]  # in the order the course meets them


async def test_everywhere_is_the_app_and_course_screen_keys_in_order(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("o")  # the outline has focus: its section first, then Everywhere
        screen = await open_help(pilot)
        assert [title for title, _ in screen.sections[:2]] == ["Outline (focused)", EVERYWHERE]
        keys = [keys for keys, _ in screen.sections[1][1]]
        assert keys == ["q / ctrl+q", "f1 / ?", "Esc", "n", "p", "o", "tab", "shift+tab"]
