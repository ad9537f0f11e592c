"""The app as a student meets it: outline, lessons, help, palette, resume, bad input."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import ContentSwitcher, Markdown, Static

from tests.ui.conftest import (
    lab,
    lesson,
    notices,
    opened,
    palette_offers,
    quiz,
    running,
    shown,
    ui_course,
    until,
)
from tui_course.progress.store import DB_NAME
from tui_course.ui import content_views
from tui_course.ui.app import CourseApp
from tui_course.ui.screens.help import HelpScreen
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.lesson_view import Figure, LessonView
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.quiz_view import QuizView


async def test_first_start_shows_outline_beside_first_lesson(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    first, attention_lab, check = lesson("word-by-word"), lab("attention-lab"), quiz("first-check")
    async with running(app) as pilot:
        outline = app.query_one(Outline)
        labels = [str(outline.get_option_at_index(i).prompt) for i in range(outline.option_count)]
        ids = [item.id for item in app.items]
        assert len(f"[ ]  1 {first.title}") > 27 and len(f"[ ] Quiz: {check.title}") > 27
        assert labels[0] == f"[ ]  1 {first.title}"[:26] + "…"  # 27: a cell for the marker
        assert labels[ids.index(attention_lab.id)] == f"    Lab: {attention_lab.title}"
        assert labels[ids.index(check.id)] == f"[ ] Quiz: {check.title}"[:26] + "…"
        count = len(ids)
        assert len(labels) == count + 1 + 3  # the items, a blank line, then the legend
        assert labels[count:] == [
            "",
            "[ ] new  [~] i/n answered",
            "[=] n/m first-try score",
            "[x] all mastered / read",
        ]
        assert outline.get_option_at_index(count + 2).disabled  # the legend cannot be opened
        assert outline.max_scroll_y == 0  # the course and legend fit 80x24
        text = await shown(pilot)
        assert first.title in text
        assert "q Quit" in text and "f1 Help" in text


async def test_lesson_figures_are_computed_live(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("attend")
    async with running(app):
        _editable, view, lengths = app.query(AttentionView)
        assert (view.query_word, view.strongest_word) == ("sat", "sat")
        assert "'station' . 'station' = |station|^2 = 5.88" in str(
            lengths.query_one(".attention-extras", Static).render()
        )
        extras = str(view.query_one(".attention-extras", Static).render())
        assert "New 'sat' = [0.419, 0.523, 0.147]" in extras
        assert "Loop and vectorised versions (scaled, 1 head): identical" in extras
    app = build_app("heads")
    async with running(app):
        body = str(app.query(Figure).first().query_one(".figure-body", Static).render())
        assert "x itself is never cut: each head reads all 4." in body


async def test_next_and_previous_walk_the_outline_and_n_does_not_mark_read(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("positions")
    async with running(app) as pilot:
        ids = [item.id for item in app.items]
        at = ids.index("positions")
        await pilot.press("n")
        assert await opened(pilot, ids[at + 1])
        assert "positions" not in app.store.lessons_done()  # its end was never on screen
        await app.open_item("pe-lab")  # (the lab after it is the training lab, not the model)
        at = ids.index("pe-lab")
        await pilot.press("escape", "n")  # from inside a lab, Esc then n moves on
        assert await opened(pilot, ids[at + 1])
        await app.open_item("by-hand")
        at = ids.index("by-hand")
        await pilot.press("p", "p", "p")  # from a quiz's intro, back over a lesson and a quiz
        assert await opened(pilot, ids[at - 3]), app.current


async def test_scrolling_to_the_end_marks_the_lesson_done(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("word-by-word")
    async with running(app) as pilot:
        view = app.query_one(LessonView)
        await pilot.pause()
        assert view.max_scroll_y > 0
        assert "word-by-word" not in app.store.lessons_done()
        view.focus()
        await pilot.press("end")
        await pilot.pause()
        assert "word-by-word" in app.store.lessons_done()
        label = str(app.query_one(Outline).get_option("word-by-word").prompt)
        assert label.startswith("[x]")


async def test_outline_by_keys_and_mouse(build_app: Callable[..., CourseApp]) -> None:
    app = build_app()
    async with running(app, size=(120, 30)) as pilot:
        outline = app.query_one(Outline)
        ids = [item.id for item in app.items]
        assert ids[3] == "heads"
        outline.focus()
        await pilot.press("j", "j", "j", "enter")
        assert await opened(pilot, "heads")
        assert app.query_one(LessonView).has_focus
        await pilot.press("escape")
        assert outline.has_focus
        await pilot.click(Outline, offset=(5, ids.index("first-check")))  # the quiz's row
        assert app.current.id == "first-check"


async def test_help_lists_every_key(build_app: Callable[..., CourseApp]) -> None:
    app = build_app()
    async with running(app) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        for key in (
            "s",
            "c",
            "m",
            "e",
            "+",
            "-",
            "]",
            "q",
            "ctrl+q",
            "f1 / ?",
            "Esc",
            "n",
            "p",
            "o",
            "ctrl+t",
            "ctrl+x",
            "1-9",
            "Space",
            "h",
            "r",
            "a",
            "Right",
            "j",
            "k",
            "ctrl+p",
            "Enter",
        ):
            assert f"  {key} " in text or f" {key} /" in text or f"/ {key} " in text, key
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_palette_opens_any_lesson(build_app: Callable[..., CourseApp]) -> None:
    app = build_app()
    async with running(app) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*lesson("positions").title)
        assert await palette_offers(pilot, lesson("positions").title)
        await pilot.press("enter")
        await pilot.pause()
        assert app.current is not None and app.current.id == "positions"


async def test_resume_where_the_student_left(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("attend")
    async with running(app) as pilot:
        view = app.query_one(LessonView)
        view.scroll_to(y=12, animate=False)
        await pilot.pause()
        await pilot.press("q")
    again = build_app()
    async with running(again) as pilot:
        await until(pilot, lambda: again.query_one(LessonView).scroll_y == 12)
        assert again.current is not None and again.current.id == "attend"
        assert again.query_one(LessonView).scroll_y == 12


async def test_keys_and_clicks_after_q_open_nothing(build_app: Callable[..., CourseApp]) -> None:
    """Keys typed fast, "n n n q n": the n after q came while the screen was taken down, and
    opening the next item there crashed the app (MountError, exit 70). Now the app closes."""
    app = build_app("attend")
    async with running(app) as pilot:
        first = app.current
        for key in ("q", "n", "n"):  # queued together, as a terminal delivers them
            app.post_message(events.Key(key, key))
        app.post_message(events.Click(app.query_one(Outline), 1, 1, 0, 0, 1, False, False, False))
        await pilot.pause()
    assert app.crash is None
    assert app.current is first
    assert app.return_code == 0


async def test_corrupt_store_gives_notice_and_keeps_working(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / DB_NAME).write_bytes(b"garbage" * 500)
    app = build_app("first-check", data=data)
    async with running(app, notifications=True) as pilot:
        assert any("could not be read" in notice for notice in await notices(pilot))
        await pilot.press("enter", "2", "enter")
        assert [a.correct for a in app.store.attempts()] == [True]


def _content(root: Path, lesson: str, quizzes: dict[str, str]) -> Path:
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "lessons" / "one.md").write_text(lesson, encoding="utf-8")
    for name, text in quizzes.items():
        (root / "quizzes" / name).write_text(text, encoding="utf-8")
    return root


async def test_untrusted_text_is_shown_literally(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    root = _content(
        tmp_path / "content",
        '+++\nid = "one"\ntitle = "[red]T[/red]\\u001b[2J"\norder = 1\n+++\n\n'
        "Text with [bold]markup[/bold] and \x1b[31mescape.\n",
        {
            "q.toml": 'id = "q"\ntitle = "Q"\n[[question]]\nkind = "text"\n'
            'prompt = "[b]literal[/b]"\nexplanation = "e"\nanswer = "a"\n'
        },
    )
    app = build_app("one", content=root)
    async with running(app) as pilot:
        await pilot.pause()
        assert "Text with [bold]markup[/bold] and [31mescape." in await shown(pilot)
        assert app.query_one(Markdown).source == "Text with [bold]markup[/bold] and [31mescape."
        assert "[red]T[/red][2J" in str(app.query_one(Outline).get_option("one").prompt)
        await app.open_item("q")
        await pilot.press("enter")  # past the intro
        assert app.query_one("#quiz-prompt", Markdown).source == "**1.** [b]literal[/b]"
        assert "1. [b]literal[/b]" in await shown(pilot)


async def test_broken_quiz_does_not_stop_the_course(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    root = _content(
        tmp_path / "content",
        '+++\nid = "one"\ntitle = "One"\norder = 1\n+++\n\nHello.\n',
        {"bad.toml": "id = \n"},
    )
    app = build_app(content=root)
    async with running(app, notifications=True) as pilot:
        assert app.current is not None and app.current.id == "one"
        assert any("quizzes/bad.toml:1: invalid TOML" in notice for notice in await notices(pilot))


async def test_toggle_outline_gives_the_lesson_the_full_width(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("heads")
    async with running(app, size=(120, 30)) as pilot:  # wide: the outline sits beside
        view = app.query_one(LessonView)
        narrow = view.size.width
        await pilot.press("o")
        await pilot.pause()
        assert not app.query_one(Outline).display
        assert view.size.width > narrow + 20


async def test_outline_labels_are_ascii_in_a_c_locale(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "C")
    app = build_app()
    async with running(app):
        outline = app.query_one(Outline)
        labels = [str(outline.get_option_at_index(i).prompt) for i in range(outline.option_count)]
        assert labels[0] == f"[ ]  1 {lesson('word-by-word').title}"[:24] + "..."
        assert all(label.isascii() and len(label) <= 27 for label in labels)


async def test_next_pressed_in_the_first_frame_is_not_lost(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # before the first lesson has been opened
        # Once the start item has been opened, a lost "n" would leave the first item open.
        await until(pilot, lambda: app.started and app.current is not None)
        await pilot.pause()
        assert app.current is not None and app.current.id == ui_course().outline()[1].id


async def test_an_open_overtaken_by_a_newer_one_leaves_the_screen_to_it(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """n opens the training lab, whose view is slow to mount on a busy server; the student
    clicks a quiz meanwhile. The quiz stays on screen with the keys, not the lab that
    finished mounting after it (a 'p' then went into the lab's hidden epochs box)."""
    entered, release = asyncio.Event(), asyncio.Event()
    mount_lab = content_views.lab_view

    async def slow_lab_view(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await release.wait()
        return await mount_lab(*args, **kwargs)

    monkeypatch.setattr(content_views, "lab_view", slow_lab_view)
    app = build_app("positions")
    async with running(app) as pilot:
        opening_lab = asyncio.create_task(app.open_item("training-lab", focus_content=True))
        await entered.wait()
        await app.open_item("by-hand")
        release.set()
        await opening_lab
        await pilot.pause()
        assert app.current is not None and app.current.id == "by-hand"
        assert app.query_one(ContentSwitcher).current == "quiz"
        assert app.sub_title.startswith("Quiz:")
        assert isinstance(app.focused, QuizView)
        await pilot.press("p")
        assert app.current.id == "positions"
