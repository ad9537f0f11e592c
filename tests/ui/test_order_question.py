"""An order question (a Parsons problem) played with keys, at 80x24 and at 40x12: pick a
line with its number and put it with another, carry it with shift+Up/Down, Enter checks."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ui.conftest import UI_COURSE, running, screen_text, until
from tui_course.content.kinds.order import OrderDraft
from tui_course.content.models import Kind, Quiz
from tui_course.content.session import Outcome, Phase
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.quiz_view import QuizView
from tui_course.views.quiz import QuizRun


def order_course(tmp_path: Path) -> Path:
    """The UI course's lesson 1 and its order question (write-double's third), as a quiz
    of its own: the code question before it would open an editor first."""
    root = tmp_path / "content"
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    shutil.copy(UI_COURSE / "lessons" / "01-word-by-word.md", root / "lessons")
    source = (UI_COURSE / "quizzes" / "code.toml").read_text(encoding="utf-8")
    order = source[source.index('[[question]]\nkind = "order"') :]
    header = 'id = "parsons"\ntitle = "In order"\nafter = "word-by-word"\n\n'
    (root / "quizzes" / "parsons.toml").write_text(header + order, encoding="utf-8")
    return root


def current(app: CourseApp) -> QuizRun:
    run = app.query_one(QuizView).run
    assert run is not None
    return run


def arranged(run: QuizRun) -> tuple[int, ...]:
    draft = run.arranging
    assert isinstance(draft, OrderDraft)
    return draft.arranged


async def put_in_order(pilot: object, app: CourseApp) -> None:
    """Number keys only: for each place from the top, pick the line that belongs there and
    put it there."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    key = current(app).question.answer
    for place, wanted in enumerate(key, start=1):
        where = arranged(current(app)).index(wanted) + 1
        if where != place:
            await pilot.press(str(where), str(place))
    await pilot.pause()
    assert arranged(current(app)) == tuple(key)


@pytest.mark.parametrize("size", [(80, 24), (40, 12)])
async def test_an_order_question_played_with_keys(
    build_app: Callable[..., CourseApp], tmp_path: Path, size: tuple[int, int]
) -> None:
    app = build_app("parsons", content=order_course(tmp_path))
    async with running(app, size=size) as pilot:
        await pilot.press("enter")  # the intro
        await until(pilot, lambda: current(app).phase is Phase.ASKING)
        run = current(app)
        assert run.question.kind is Kind.ORDER
        shown = run.question.options
        assert arranged(run) != tuple(run.question.answer)  # never shown in the right order
        if size == (80, 24):
            screen = screen_text(app)
            for line in shown:  # every line on screen, its indentation kept
                assert f". {line}" in screen or f".  {line}" in screen, line
            assert "        doubled.append(2 * row)" in screen
        # Enter before any line has moved: asked for a move, no try spent
        await pilot.press("enter")
        await until(pilot, lambda: bool(current(app).problem))
        assert current(app).problem.startswith("Put the lines in order first")
        assert current(app).session.state.tries_used == 0
        # shift+Down carries the highlighted line one place down, and it stays picked
        before = arranged(current(app))
        await pilot.press("shift+down")
        await pilot.pause()
        after = arranged(current(app))
        assert after == (before[1], before[0], *before[2:])
        draft = current(app).arranging
        assert isinstance(draft, OrderDraft) and draft.picked == 2
        # still wrong (the fixture's lines, shuffled from their text, need more moves):
        # one try gone, the first misplaced line named
        assert after != tuple(current(app).question.answer)
        await pilot.press("enter")
        await until(pilot, lambda: current(app).session.state.tries_used == 1)
        message = current(app).session.state.message or ""
        assert message.startswith("The first 2 lines are in place; then")
        assert "should come before" in message
        await until(pilot, lambda: "should come before" in " ".join(screen_text(app).split()))
        assert current(app).phase is Phase.ASKING
        await pilot.press("2")  # the same number puts it down where it is
        await pilot.press("9")  # no ninth line: nothing changes
        await pilot.pause()
        assert arranged(current(app)) == after
        await put_in_order(pilot, app)
        await pilot.press("enter")
        await until(pilot, lambda: current(app).phase is Phase.CLOSED)
        assert current(app).session.state.outcome is Outcome.RIGHT
        await until(pilot, lambda: "Correct." in screen_text(app))
        rows = app.store.quiz_rows("parsons")
        assert [(r.verdict, r.try_number) for r in rows] == [("wrong", 1), ("right", 2)]
        assert all(r.answer.startswith("l:") for r in rows)  # the lines, not where shown
        quiz = app.course.find("parsons")
        assert isinstance(quiz, Quiz) and quiz.questions[0].kind is Kind.ORDER
