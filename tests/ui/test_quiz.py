"""Quizzes taken end to end by keys, checked against what the store holds."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Input

from tests.ui.conftest import running, shown, widget_text
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.quiz_view import QuizView


def stored(app: CourseApp, quiz_id: str) -> list[tuple[int, str, bool]]:
    return [(a.question_index, a.answer, a.correct) for a in app.store.attempts(quiz_id)]


async def test_checkpoint_by_keys_with_retry_and_summary(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("checkpoint")
    async with running(app) as pilot:
        quiz = app.query_one(QuizView)
        assert quiz.has_focus
        assert "Question 1 of 3" in await shown(pilot)
        await pilot.press("2", "enter")
        assert "Correct." in await shown(pilot)
        assert stored(app, "checkpoint") == [(1, "2", True)]  # on disk before we looked
        await pilot.press("right", "3", "enter")
        assert "Not quite." in await shown(pilot)
        assert "<- your answer" in str(quiz.query(".option-text").last().render())
        await pilot.press("r", "1", "enter")
        assert "Correct." in await shown(pilot)
        await pilot.press("right")  # right arrow skips on
        await pilot.press("1", "down", "space", "enter")  # multi: 1 on, cursor to 2, 2 on
        assert "Correct." in await shown(pilot)
        await pilot.press("enter")  # Enter after a verdict moves on too
        text = await shown(pilot)
        assert "Score: 2 of 3 right on the first try." in text
        assert "r: retry the 1 you missed" in text
        assert stored(app, "checkpoint") == [
            (1, "2", True),
            (2, "3", False),
            (2, "1", True),
            (3, "1,2", True),
        ]
        stats = app.store.quiz_stats("checkpoint", 3)
        assert (stats.best_correct, len(stats.mastered)) == (2, 3)
        label = app.query_one(Outline).get_option("checkpoint").prompt
        assert str(label).startswith("[x] 2/3")
        await pilot.press("r")
        assert "Question 1 of 1 (retrying missed ones)" in await shown(pilot)
        assert "2. Without positional information" in await shown(pilot)


async def test_numeric_exercise_hints_feedback_and_tolerance(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("exercises")
    async with running(app) as pilot:
        box = app.query_one("#quiz-number", Input)
        assert box.has_focus
        await pilot.press(*"0.731")
        await pilot.press("h")  # a letter falls through the number box to the hint key
        assert box.value == "0.731"
        assert "Hint 1 of 3: Scores: q.k1 = 1 and q.k2 = 0." in await shown(pilot)
        await pilot.press("enter")
        verdict = widget_text(app, "#quiz-verdict")
        assert verdict.startswith("Not quite.\nThat is the weight without the 1/sqrt(d_k) scaling.")
        assert "You answered 0.731; the answer is 0.670." in verdict
        assert "Not quite." in await shown(pilot)
        await pilot.press("r")
        assert box.value == "" and box.has_focus
        assert "Hint 1 of 3" in await shown(pilot)  # hints already seen stay visible
        await pilot.press(*"0.6702", "enter")
        assert "Correct." in await shown(pilot)
        await pilot.press("enter")
        await pilot.press(*"xyz")  # letters are refused by the number box
        assert box.value == ""
        await pilot.press("enter")
        assert widget_text(app, "#quiz-verdict") == "Type an answer, then press Enter."
        assert stored(app, "exercises") == [(1, "0.731", False), (1, "0.6702", True)]


async def test_text_answer_and_escape_leaves_the_box(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("exercises")
    async with running(app) as pilot:
        await pilot.press("escape", "right", "escape", "right")  # Esc leaves a number box; skip
        text_box = app.query_one("#quiz-text", Input)
        assert text_box.has_focus
        await pilot.press(*"X0 .. x3")
        await pilot.press("escape")
        assert app.query_one(QuizView).has_focus
        await pilot.press("enter")
        assert "Not quite." in await shown(pilot)  # "x0 .. x3" is not "x0..x3"
        await pilot.press("r", *"x0-x3", "enter")
        assert "Correct." in await shown(pilot)
        assert stored(app, "exercises") == [(3, "X0 .. x3", False), (3, "x0-x3", True)]


async def test_mouse_click_picks_an_option(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("checkpoint")
    async with running(app) as pilot:
        rows = app.query(".option")
        await pilot.click(rows[1])
        await pilot.press("enter")
        assert "Correct." in await shown(pilot)


async def test_skipping_everything_then_retrying_missed(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("checkpoint")
    async with running(app) as pilot:
        await pilot.press("right", "right", "right")
        assert "Score: 0 of 3" in await shown(pilot)
        await pilot.press("n")  # after the summary, n moves on in the course
        assert app.current is not None and app.current.id == "exercises"
