"""Screens that fit: the outline collapses below 100 columns, figures fit or say they scroll,
the footer keeps q, f1 and o, focus is visible and reaches every figure."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget
from textual.widgets import Input

from tests.ui.conftest import figures_cut, laid_out, opened, quiz, running, shown, until
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.lesson_view import SCROLLS_SIDEWAYS, Figure, LessonView
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.pe_view import PEView


def footer_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


async def test_outline_is_an_overlay_below_100_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        outline, lesson = app.query_one(Outline), app.query_one(LessonView)
        assert not outline.display
        assert lesson.region.x == 0 and lesson.size.width >= 78
        assert lesson.has_focus
        await pilot.press("o")
        assert outline.display and outline.has_focus
        assert outline.region.x == 0  # over the lesson, which keeps its width
        assert lesson.size.width >= 78
        assert f"[ ]  1 {app.items[0].title}" in await shown(pilot)  # wide: not cut
        await pilot.press("down", "enter")
        assert app.current is not None and app.current.id == app.items[1].id
        assert not outline.display and lesson.has_focus
        await pilot.press("escape")  # Esc goes back to the outline: over the lesson
        assert outline.display and outline.has_focus
        await pilot.press("escape")  # and a second Esc puts it away
        assert not outline.display and lesson.has_focus


async def test_outline_sits_beside_the_lesson_at_200_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attend")
    async with running(app, size=(200, 60)) as pilot:
        outline, lesson = app.query_one(Outline), app.query_one(LessonView)
        assert outline.display and lesson.region.x == outline.region.right
        await pilot.press("o")
        assert not outline.display and lesson.region.x == 0
        await pilot.press("o")
        assert outline.display and lesson.region.x == 30


async def test_narrowing_the_terminal_moves_focus_off_the_hidden_outline(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with running(app, size=(120, 30)) as pilot:
        app.query_one(Outline).focus()
        await pilot.resize_terminal(80, 24)
        await until(
            pilot,
            lambda: not app.query_one(Outline).display and app.query_one(LessonView).has_focus,
        )
        assert not app.query_one(Outline).display
        assert app.query_one(LessonView).has_focus
        await pilot.press("o")  # the overlay, then wide again: it sits beside, and stays put
        await pilot.resize_terminal(120, 30)
        await until(
            pilot, lambda: app.query_one(Outline).display and not app.main_screen.overlay_open
        )
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: app.size.width == 80 and not app.query_one(Outline).display)
        assert not app.query_one(Outline).display


async def test_every_lesson_figure_fits_at_80x24(build_app: Callable[..., CourseApp]) -> None:
    app = build_app()
    async with running(app, size=(80, 24)) as pilot:
        cut: list[str] = []
        for lesson in app.course.lessons:
            await app.open_item(lesson.id)
            await until(pilot, lambda: laid_out(app.query_one(LessonView)))
            await pilot.pause()
            cut += [f"{lesson.id}: {it}" for it in figures_cut(app.query_one(LessonView))]
        assert cut == []


async def test_a_figure_too_wide_for_40_columns_says_it_scrolls(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("heads")
    async with running(app, size=(40, 12)) as pilot:
        figure = app.query_one(Figure)
        await until(pilot, lambda: figure.border_subtitle == SCROLLS_SIDEWAYS)
        assert figure.max_scroll_x > 0
        assert figure.border_subtitle == SCROLLS_SIDEWAYS
        await pilot.resize_terminal(120, 30)
        await until(pilot, lambda: figure.max_scroll_x == 0 and figure.border_subtitle == "")
        assert figure.max_scroll_x == 0 and figure.border_subtitle == ""


async def test_40x12_reads_and_keeps_quit_help_and_outline(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attend")
    async with running(app, size=(40, 12)) as pilot:
        text = await shown(pilot)
        assert "Self-attention turns a list of token" in text
        for key in ("q Quit", "f1 Help", "o Outline"):
            assert key in footer_line(text)
        await pilot.press("tab")  # into the attention figure: its keys join, ours stay
        assert isinstance(app.focused, AttentionView)
        for key in ("q Quit", "f1 Help", "o Outline"):
            assert key in footer_line(await shown(pilot))


async def test_focused_pane_is_marked_and_the_footer_shows_its_keys(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("attend")
    async with running(app, size=(120, 30)) as pilot:
        app.query_one(LessonView).focus()
        text = await shown(pilot)
        assert all(line[30] == "▌" for line in text.splitlines()[2:20])  # the lesson's edge
        assert "s Scale" not in footer_line(text)
        await pilot.press("tab")  # the live figure
        assert "s Scale" in footer_line(await shown(pilot))
        app.query_one(Outline).focus()
        text = await shown(pilot)
        assert all(line[29] == "▐" for line in text.splitlines()[2:20])  # the outline's edge
        assert all(line[30] != "▌" for line in text.splitlines()[2:20])


async def test_focusing_a_tall_figure_shows_its_top(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("tab")
        view = app.query_one(AttentionView)
        lesson_y = app.query_one(LessonView).region.y
        await until(
            pilot,
            lambda: (
                view.has_focus
                and isinstance(view.parent, Widget)
                and view.parent.region.y == lesson_y
            ),
        )
        assert view.has_focus
        frame = view.parent
        assert frame is not None and frame.region.y == app.query_one(LessonView).region.y
        assert "╔═ live: attention" in (await shown(pilot)).splitlines()[1]  # double: focused
    app = build_app("heads")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("tab")  # a computed (not live) figure is a Tab stop too
        assert isinstance(app.focused, Figure)
        assert "╔═ computed live" in (await shown(pilot)).splitlines()[1]


async def test_tab_reaches_the_attention_lab_switches(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attention-lab")
    async with running(app, size=(80, 24)) as pilot:
        assert isinstance(app.focused, Input)  # a lab starts in its text box
        await pilot.press("tab")
        view = app.query_one(AttentionView)
        assert view.has_focus
        await pilot.press("s", "c")
        assert (view.setup.scale, view.setup.causal) == (False, True)
        await pilot.press("tab")
        assert isinstance(app.focused, Input)


async def test_a_notice_sits_above_the_footer_without_covering_feedback(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("enter", "h", "4", "enter")  # past the intro, a hint, a wrong answer
        before = await shown(pilot)
        assert "Not yet." in before
        app.notify("Training finished: [b]test[/b] accuracy 0.990", title="Training lab")
        text = await shown(pilot)
        lines = text.splitlines()
        assert lines[-2].strip() == "Training lab: Training finished: [b]test[/b] accuracy 0.990"
        feedback = [line[:-3] for line in before.splitlines() if "Not yet." in line]
        hints = [line[:-3] for line in before.splitlines() if "Hint" in line]
        assert feedback and hints
        for line in feedback + hints:  # still on screen, not under a toast
            assert line in text
        assert len(app.screen.query("Toast")) == 0


async def test_training_form_stacks_its_fields_at_40_columns(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("training-lab")
    async with running(app, size=(40, 24)) as pilot:
        await until(pilot, lambda: bool(app.query("#train-batch_size")))
        digits, epochs, batch = (
            app.query_one(f"#train-{name}") for name in ("length", "epochs", "batch_size")
        )
        await until(pilot, lambda: digits.region.y == epochs.region.y < batch.region.y)
        assert digits.region.y == epochs.region.y < batch.region.y  # two to a row
        assert digits.region.width >= 15
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: digits.region.y == batch.region.y)
        assert digits.region.y == batch.region.y  # one row when there is room


async def test_outline_labels_keep_to_one_line_when_the_outline_scrolls(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with running(app, size=(120, 12)) as pilot:
        outline = app.query_one(Outline)
        await pilot.pause()
        assert outline.max_scroll_y > 0  # more rows than its 10: a scrollbar shows
        assert outline.virtual_size.height == outline.option_count  # and nothing wraps


async def test_widening_puts_the_overlay_away_at_once(build_app: Callable[..., CourseApp]) -> None:
    """The resize handler read the size before the resize (App stores it after the app's own
    handler runs), so one widening left the overlay marked open at 200 columns."""
    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("o")
        assert app.main_screen.overlay_open
        await pilot.resize_terminal(200, 60)
        await until(pilot, lambda: app.query_one(LessonView).region.x == 30)
        assert not app.main_screen.overlay_open
        assert app.query_one(Outline).region.x == 0 and app.query_one(LessonView).region.x == 30
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: app.size.width == 80 and not app.query_one(Outline).display)
        assert not app.main_screen.overlay_open and not app.query_one(Outline).display


async def test_a_text_box_with_the_focus_still_shows_how_to_quit(
    build_app: Callable[..., CourseApp],
) -> None:
    """In a sentence or answer box q and o type letters, so Textual left Quit and Outline
    out of the footer and a student typing in the attention lab saw no way out; ctrl+q
    quits there, and Esc leaves the box for the other keys."""
    app = build_app("attention-lab")
    async with running(app, size=(40, 12)) as pilot:
        assert isinstance(app.focused, Input)
        footer = footer_line(await shown(pilot))
        assert footer.split()[:6] == ["^q", "Quit", "f1", "Help", "esc", "Back"]
        await pilot.press("escape")  # out of the box: q quits again, and says so
        footer = footer_line(await shown(pilot))
        assert footer.split()[:6] == ["q", "Quit", "f1", "Help", "o", "Outline"]
        app.query_one(Input).focus()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_leaving_the_overlay_for_the_content_puts_it_away(
    build_app: Callable[..., CourseApp],
) -> None:
    """n, p or Tab from the open overlay move focus to the content: the overlay must not
    stay on top of it (a quiz's answer box and feedback were hidden under it)."""
    app = build_app("word-by-word")
    async with running(app, size=(80, 24)) as pilot:
        outline = app.query_one(Outline)
        await pilot.press("o")
        assert await until(pilot, lambda: outline.display and outline.has_focus)
        await pilot.press("n")
        assert app.current is not None and app.current.id == app.items[1].id
        assert await until(
            pilot, lambda: not outline.display and app.query_one(LessonView).has_focus
        )
        await pilot.press("o", "tab")
        assert await until(pilot, lambda: not outline.display and not outline.has_focus)
        await pilot.press("escape")  # Esc from the lesson opens it again
        assert outline.display and outline.has_focus
    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        outline = app.query_one(Outline)
        await pilot.press("o", "n")  # on to the quiz after it: its answer area is not covered
        assert await opened(pilot, "first-check")
        assert not outline.display


async def test_switch_and_key_lines_break_between_items_at_80x24(
    build_app: Callable[..., CourseApp],
) -> None:
    """'| e' at the end of one line and 'vectors toy-train' on the next read as two things."""
    app = build_app("attention-lab")
    async with running(app, size=(80, 24)) as pilot:
        text = await shown(pilot)
        assert "e vectors toy-train" in text
        assert not any(line.rstrip(" ▌▎║│").endswith(" e") for line in text.splitlines())
    app = build_app("pe-lab")
    async with running(app, size=(80, 24)) as pilot:
        text = await shown(pilot)
        assert "[/] d_model" in text and "up/down compare a position" in text
    app = build_app("positions")  # its first table has no map to compare rows in
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("tab")
        figure = app.focused
        assert isinstance(figure, PEView) and not figure.show_similarity
        region = figure.region
        lines = (await shown(pilot)).splitlines()[region.y : region.bottom]
        text = "\n".join(line[region.x : region.right] for line in lines)
        assert "[/] d_model" in text and "compare a position" not in text
    app = build_app("first-check")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("enter")
        text = await shown(pilot)
        assert "h hint, v answer, Right skip" in text


async def test_quiz_footer_names_what_enter_and_right_do_now(
    build_app: Callable[..., CourseApp],
) -> None:
    """'Submit' and 'Skip' on the intro and after an answer named keys that start or go on."""
    app = build_app("first-check")
    async with running(app, size=(80, 24)) as pilot:
        footer = footer_line(await shown(pilot))
        assert "Start" in footer and "Submit" not in footer and "Skip" not in footer
        await pilot.press("enter")
        footer = footer_line(await shown(pilot))
        assert "Submit" in footer and "Skip" in footer and "Start" not in footer
        await pilot.press("2", "enter")  # right: the question is closed
        footer = footer_line(await shown(pilot))
        assert "Next question" in footer and "Next item" in footer  # Enter, and n
        assert "Submit" not in footer and "Skip" not in footer
        await pilot.press("right")  # Right still goes on, though the footer shows Enter only
        assert "Question 2 of 3" in await shown(pilot)


async def test_pe_figure_footer_shows_its_keys(build_app: Callable[..., CourseApp]) -> None:
    """The PE figure's keys were all hidden: the footer looked like a plain lesson's."""
    app = build_app("pe-lab")
    async with running(app, size=(80, 24)) as pilot:
        footer = footer_line(await shown(pilot))
        assert "+ - Positions" in footer and "] [ d_model" in footer
        assert footer.index("q Quit") < footer.index("Positions")  # quit, help, outline first
        await pilot.press("plus", "right_square_bracket")
        assert "positions 0-10 (11," in await shown(pilot)
        assert "x d_model 10 " in await shown(pilot)


async def test_heads_are_set_apart_by_a_blank_line(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attend")
    async with running(app, size=(80, 50)) as pilot:
        await pilot.press("tab", "m")
        lines = (await shown(pilot)).splitlines()
        title = next(i for i, line in enumerate(lines) if "head 2 of 2: size " in line)
        assert lines[title - 1].strip(" ▌║") == ""
        assert "weights in %" in lines[title - 2]


async def test_closing_the_overlay_gives_focus_back_where_it_was(
    build_app: Callable[..., CourseApp],
) -> None:
    """o then Esc from a figure landed on the lesson: the figure's keys went dead."""
    app = build_app("attend")
    async with running(app, size=(40, 12)) as pilot:
        await pilot.press("tab")
        assert isinstance(app.focused, AttentionView)
        await pilot.press("o")
        assert app.query_one(Outline).has_focus
        await pilot.press("escape")
        assert isinstance(app.focused, AttentionView)
        await pilot.press("o", "o")
        assert isinstance(app.focused, AttentionView)
        await pilot.press("o", "down", "down", "enter")  # a new item opens: its content has focus
        assert await opened(pilot, "heads")
        assert app.query_one(LessonView).has_focus


async def test_computed_figures_keep_their_text_off_the_frame(
    build_app: Callable[..., CourseApp],
) -> None:
    """The heads figure's first line ('│x has 8 components') touched the frame; the live
    figures have a space there."""
    app = build_app("heads")
    async with running(app, size=(80, 40)) as pilot:
        lines = (await shown(pilot)).splitlines()
        line = next(line for line in lines if "x, one token, d = 4" in line)
        assert "│ x, one token, d = 4" in line


async def test_the_overlay_is_wide_enough_for_whole_titles_at_80x24(
    build_app: Callable[..., CourseApp],
) -> None:
    """The overlay kept the side outline's 27-cell labels: 'Quiz: Mini-checkpo…'."""
    app = build_app("first-check")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("o")
        text = await shown(pilot)
        for item in app.items:
            assert item.title in text, item.title
        assert "\u2026" not in text.split("▐")[0]
    app = build_app("first-check")
    title = quiz("first-check").title
    async with running(app, size=(120, 30)) as pilot:  # beside the content: 30 wide, cut
        assert f"Quiz: {title}"[:22] + "\u2026" in await shown(pilot)


async def test_read_as_line_stands_apart_from_the_hint_under_it(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("by-hand")
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("enter", "0", ".", "5", "enter")
        lines = (await shown(pilot)).splitlines()
        at = next(i for i, line in enumerate(lines) if "read as 0.500" in line)
        assert lines[at + 1].strip(" ▌") == ""
        assert "Hint 1 of" in lines[at + 2]


async def test_the_way_to_the_sentence_box_a_lesson_gives_works(
    build_app: Callable[..., CourseApp],
) -> None:
    """A lesson said 'the box above the figure'; the box is the figure's first line, two Tabs
    in (test_shipped_course.py checks the shipped lesson says so)."""
    from tui_course.ui.widgets.lesson_view import LiveFigure

    app = build_app("attend")
    async with running(app, size=(80, 24)) as pilot:
        prose = " ".join(
            " ".join(markdown.source.split()) for markdown in app.query("LessonView Markdown")
        )
        assert "Press Tab twice to reach the box at the top of the figure" in prose
        await pilot.press("tab", "tab")
        box = app.focused
        assert isinstance(box, Input)
        assert any(isinstance(node, LiveFigure) for node in box.ancestors)
