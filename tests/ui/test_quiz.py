"""Quizzes taken end to end by keys, checked against what the screen shows and the store holds."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.widgets import Input, Markdown, Static

from tests.ui.conftest import opened, quiz, running, screen_text, shown, until
from tui_course.content.models import REVIEW_ID
from tui_course.content.session import Phase
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.outline import Outline
from tui_course.ui.widgets.quiz_view import QuizView
from tui_course.views.quiz import QuizRun


def stored(app: CourseApp, quiz_id: str) -> list[tuple[int, str, str, int]]:
    """The stored attempts, a picked option's id (what is stored) read as its number in the
    quiz file, so the rows read like the keys pressed in file order."""
    from tui_course.content.models import Quiz
    from tui_course.content.shuffle import option_id

    quiz = app.course.find(quiz_id)

    def number(question: int, answer: str) -> str:
        if not isinstance(quiz, Quiz) or not answer.startswith("o:"):
            return answer
        options = quiz.questions[question - 1].options
        ids = {option_id(text): n for n, text in enumerate(options, start=1)}
        return ",".join(str(ids[part]) for part in answer.split(","))

    return [
        (r.question_index, number(r.question_index, r.answer), r.verdict, r.try_number)
        for r in app.store.quiz_rows(quiz_id)
    ]


async def quiz_text(pilot: object) -> str:
    """Every part of the quiz view, unwrapped: Static text and Markdown sources."""
    from textual.pilot import Pilot
    from textual.widgets import Static

    assert isinstance(pilot, Pilot)
    await pilot.pause()
    view = pilot.app.query_one(QuizView)
    parts = []
    for widget in view.query("Static, Markdown"):
        if not widget.display:
            continue
        if isinstance(widget, Markdown):
            parts.append(widget.source)
        elif isinstance(widget, Static) and widget.id is not None:
            parts.append(str(widget.render()))
    return "\n".join(parts)


def widget_text(app: CourseApp, selector: str) -> str:
    from textual.widgets import Static

    return str(app.query_one(selector, Static).render())


def mark(app: CourseApp, item_id: str) -> str:
    return str(app.query_one(Outline).get_option(item_id).prompt)


async def test_intro_comes_before_question_one(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("first-check")
    async with running(app) as pilot:
        text = await quiz_text(pilot)
        assert quiz("first-check").intro in text
        assert "Enter: start" in text and "Question 1" not in text
        await pilot.press("2")  # an option key does nothing on the intro
        assert stored(app, "first-check") == []
        await pilot.press("enter")
        assert "Question 1 of 3" in await quiz_text(pilot)


async def test_a_small_screen_shows_how_to_start_on_the_intro(
    build_app: Callable[..., CourseApp],
) -> None:
    """At 40x12 the intro's text fills the screen and the footer has room only for q, f1
    and o: the title line says how to start."""
    app = build_app("first-check")
    async with running(app, size=(40, 12)) as pilot:
        assert await until(pilot, lambda: "Quit" in screen_text(app))
        shown = " ".join(screen_text(app).split())
        assert "Enter to start" in shown
        await pilot.press("enter")
        assert "Question 1 of 3" in await quiz_text(pilot)


async def test_wrong_answer_hides_the_key_until_the_last_try(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    question = quiz("first-check").questions[0]
    assert question.answer == 2 and question.mistakes[0].answer == 4 and len(question.hints) == 2
    async with running(app) as pilot:
        view = app.query_one(QuizView)
        await pilot.press("enter", "4", "enter")
        text = await quiz_text(pilot)
        assert "Not yet. 2 tries left." in text
        assert question.mistakes[0].feedback in text  # targeted feedback
        assert "<- correct" not in text and "Why:" not in text
        assert question.explanation[:40] not in widget_text(app, "#quiz-verdict")
        await pilot.press("1", "enter")  # no feedback for 1: the next hint teaches instead
        text = await quiz_text(pilot)
        assert "Not yet. 1 try left." in text
        assert f"*Hint 1 of 2:* {question.hints[0]}" in text
        assert "<- correct" not in text
        await pilot.press("3", "enter")  # the last try
        text = await quiz_text(pilot)
        assert "Not quite, and that was the last try." in text
        assert "<- correct" in str(view.query(".option-text")[1].render())
        teach = app.query_one("#quiz-teach", Markdown).source
        assert teach.startswith(f"**Why:** {question.explanation[:40]}")
        assert stored(app, "first-check") == [
            (1, "4", "wrong", 1),
            (1, "1", "wrong", 2),
            (1, "3", "wrong", 3),
        ]
        assert [r.hints_seen for r in app.store.quiz_rows("first-check")] == [0, 0, 1]


async def test_two_options_get_one_try_and_reveal_is_recorded(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    root = _content(
        tmp_path / "content",
        """id = "q"
title = "Q"
intro = "Two questions."

[[question]]
kind = "choice"
prompt = "Yes or no?"
options = ["yes", "no"]
answer = 1
explanation = "Yes."

[[question]]
kind = "text"
prompt = "Name it"
answer = "it"
hints = ["It is *it*."]
explanation = "It is **it**."
""",
    )
    app = build_app("q", content=root)
    async with running(app) as pilot:
        await pilot.press("enter", "2", "enter")
        assert "Not quite, and that was the last try." in await quiz_text(pilot)
        await pilot.press("enter")  # on to question 2, a text box
        box = app.query_one("#quiz-answer", Input)
        assert box.has_focus
        await pilot.press("escape", "h")
        text = await quiz_text(pilot)
        assert "It is *it*." in text  # the Markdown source...
        assert "It is it." in await shown(pilot)  # ...drawn without its asterisks
        await pilot.press("v")
        text = await quiz_text(pilot)
        assert "Answer shown (recorded as revealed)." in text and "The answer: it" in text
        rows = app.store.quiz_rows("q")
        assert [(r.verdict, r.revealed, r.hints_seen) for r in rows] == [
            ("wrong", False, 0),
            ("revealed", True, 1),
        ]


async def test_letters_typed_in_an_answer_box_stay_in_the_box(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("by-hand")
    async with running(app) as pilot:
        await pilot.press("enter")
        box = app.query_one("#quiz-answer", Input)
        assert box.has_focus
        await pilot.press(*"q.k1 hnarvp")  # every one of these is an app or quiz key
        assert box.value == "q.k1 hnarvp"
        assert app.is_running and app.current is not None and app.current.id == "by-hand"
        assert app.query_one(QuizView).session.state.hints_seen == 0  # type: ignore[union-attr]
        assert stored(app, "by-hand") == []
        await pilot.press("end")  # still in the box
        assert box.has_focus


async def test_numeric_box_reads_comma_fractions_and_expressions(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("by-hand")
    async with running(app) as pilot:
        await pilot.press("enter", *"1/sqrt(2)")
        assert widget_text(app, "#quiz-read-as") == "read as 0.707"
        await pilot.press("enter")
        text = await quiz_text(pilot)
        assert "Not yet. 2 tries left." in text
        assert "The answer" not in text and "0.804" not in text
        box = app.query_one("#quiz-answer", Input)
        box.value = ""
        await pilot.press(*"0,804")  # the key: softmax([2, 0] / sqrt(2))[0]
        assert widget_text(app, "#quiz-read-as") == "read as 0.804"
        await pilot.press("enter")
        text = await quiz_text(pilot)
        assert "Correct." in text and "The answer: 0.804" in text
        assert stored(app, "by-hand") == [(1, "1/sqrt(2)", "wrong", 1), (1, "0,804", "right", 2)]


async def test_text_answers_forgive_notation(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("by-hand")
    async with running(app) as pilot:
        await pilot.press("enter", "escape", "right", "escape", "right")  # Esc, then Right skips
        text = await quiz_text(pilot)
        questions = quiz("by-hand").questions
        assert f"Question 3 of {len(questions)}" in text
        assert questions[2].answer == ("(2, 3, 4)",)
        assert "(2, 3, 4)" not in text  # the prompt keeps its key
        await pilot.press(*"[2,3, 4]", "enter")
        assert "Correct. First try." in await quiz_text(pilot)
        rows = stored(app, "by-hand")
        assert [r[2] for r in rows] == ["skipped", "skipped", "right"]


async def test_retry_leaves_the_first_try_score_alone(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app) as pilot:
        await pilot.press("enter", "2", "enter", "enter")  # q1 right first try
        await pilot.press("v", "enter")  # q2 revealed
        await pilot.press("3", "enter", "3", "1", "2", "enter")  # q3 wrong, then right
        await pilot.press("enter")
        text = await quiz_text(pilot)
        assert "First-try score: 1 of 3." in text
        assert "r: the 2 missed again" in text
        assert mark(app, "first-check").startswith("[=] 1/3")
        await pilot.press("r")
        assert "Question 1 of 2 (again: the first-try score stays)" in await quiz_text(pilot)
        await pilot.press("1", "enter")
        # right at once in a retry: not called a first try, which is what the score counts
        assert "Correct. First try this time." in widget_text(app, "#quiz-verdict")
        await pilot.press("enter", "1", "2", "enter", "enter")
        text = await quiz_text(pilot)
        assert "This time: 2 of 2 right." in text
        assert "Your first-try score stays 1 of 3." in text
        stats = app.store.quiz_stats("first-check", 3)
        assert (stats.first_try, len(stats.mastered)) == (1, 3)
        assert mark(app, "first-check").startswith("[x] 1/3")  # all mastered, score unchanged
        await app.open_item("word-by-word")
        await app.open_item("first-check")  # reopens on the first pass's summary...
        text = await quiz_text(pilot)
        assert "First-try score: 1 of 3." in text
        assert "Right in the end, without showing the answer: 2 of 3." in text
        # ...which says what the retry mastered since, as the outline and progress do
        assert "Since then (going again or in review): 3 of 3 right" in text
        # the missed questions are listed by their first words, cut at a word boundary
        assert "- 2. Without position vectors, how does attention see the ...\n" in text


async def test_a_quiz_left_part_way_is_in_progress_not_a_score(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    app = build_app("first-check", data=data)
    async with running(app) as pilot:
        await pilot.press("enter", "4", "enter", "2", "enter", "enter")  # q1 right on try 2
        await pilot.press("3", "enter")  # q2: one wrong try, then leave
        await app.open_item("word-by-word")
        await pilot.pause()
        assert mark(app, "first-check").startswith("[~] 1/3")
        stats = app.store.quiz_stats("first-check", 3)
        assert (stats.state, stats.answered, stats.first_try) == ("in progress", 1, None)
    again = build_app("first-check", data=data)
    async with running(again) as pilot:
        session = again.query_one(QuizView).session
        assert session is not None and session.phase is Phase.ASKING  # no intro, resumed
        text = await quiz_text(pilot)
        assert "Question 2 of 3" in text and "1 of 2 tries left" in text  # no fresh tries


async def test_finished_quiz_reopens_on_its_summary(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("first-check")
    async with running(app) as pilot:
        await pilot.press("enter", "right", "right", "right")
        assert "First-try score: 0 of 3." in await quiz_text(pilot)
        await pilot.press("n")  # after the summary, n moves on in the course
        ids = [item.id for item in app.items]
        assert await opened(pilot, ids[ids.index("first-check") + 1])
        await pilot.press("escape", "p")
        assert "First-try score: 0 of 3." in await quiz_text(pilot)
        assert "Question 1" not in await quiz_text(pilot)


async def test_the_answer_box_is_made_when_a_typed_question_first_shows(
    build_app: Callable[..., CourseApp],
) -> None:
    """A quiz of choices never makes an Input (a returning student's summary starts without
    its CSS and styling); the first typed question makes one, kept and reused after."""
    app = build_app("first-check")
    async with running(app) as pilot:
        await pilot.press("enter", "right", "right", "right")
        assert "First-try score: 0 of 3." in await quiz_text(pilot)
        assert not app.query("#quiz-answer")
        await app.open_item("by-hand")  # typed questions
        assert not app.query("#quiz-answer")  # its intro asks for nothing
        await pilot.press("enter")
        box = app.query_one("#quiz-answer", Input)
        assert box.has_focus and box.display and not box.disabled
        view = app.query_one(QuizView)
        ids = [child.id for child in view.children]
        assert ids.index("quiz-options") < ids.index("quiz-answer") < ids.index("quiz-read-as")
        await pilot.press("escape", "right")  # question 2, numeric too: the same box
        assert app.query_one("#quiz-answer", Input) is box and box.has_focus
        await app.open_item("first-check")  # back to its summary: the box hidden, not gone
        assert "First-try score: 0 of 3." in await quiz_text(pilot)
        assert app.query_one("#quiz-answer", Input) is box and not box.display


async def test_review_item_appears_when_due(build_app: Callable[..., CourseApp]) -> None:
    clock = [datetime(2026, 11, 30, 9, 0, tzinfo=UTC)]
    app = build_app("first-check")
    app.now = lambda: clock[0]
    async with running(app) as pilot:
        await pilot.press("enter", "v", "enter", "right", "right")  # q1 revealed, q2 q3 skipped
        await pilot.pause()
        assert str(app.query_one(Outline).get_option(REVIEW_ID).prompt) == "    Review (0 due)"
        clock[0] += timedelta(minutes=2)  # FSRS brings a miss back after its first step
        app.refresh_outline()
        assert str(app.query_one(Outline).get_option(REVIEW_ID).prompt) == "    Review (3 due)"
        await app.open_item(REVIEW_ID)
        text = await quiz_text(pilot)
        assert "Question 1 of 3 (review, from first-check)" in text
        await pilot.press("2", "enter")
        assert "Correct. First try this time." in await quiz_text(pilot)
        rows = app.store.quiz_rows("first-check")
        assert (rows[-1].pass_kind, rows[-1].verdict) == ("review", "right")
        assert app.store.quiz_stats("first-check", 3).first_try == 0  # review never raises it
        app.refresh_outline()
        assert str(app.query_one(Outline).get_option(REVIEW_ID).prompt) == "    Review (2 due)"


def _content(root: Path, quiz: str) -> Path:
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "lessons" / "one.md").write_text(
        '+++\nid = "one"\ntitle = "One"\norder = 1\n+++\n\nHello.\n', encoding="utf-8"
    )
    (root / "quizzes" / "q.toml").write_text(quiz, encoding="utf-8")
    return root


async def test_content_links_and_markup_never_act(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    root = _content(
        tmp_path / "content",
        """id = "q"
title = "Q"

[[question]]
kind = "text"
prompt = "See [this](https://example.com) and [b]bold[/b] and [@click=app.quit]quit[/]"
answer = "it"
explanation = "e"
""",
    )
    app = build_app("q", content=root)
    opened: list[str] = []
    app.open_url = lambda url, **kwargs: opened.append(url)  # type: ignore[method-assign]
    async with running(app) as pilot:
        await pilot.press("enter")
        prompt = app.query_one("#quiz-prompt", Markdown)
        prompt.post_message(Markdown.LinkClicked(prompt, "https://example.com"))
        await pilot.pause()
        assert opened == []  # a link in content does not open anything
        text = await shown(pilot)
        assert "[b]bold[/b]" in text and "[@click=app.quit]quit[/]" in text
        assert app.is_running
        box = app.query_one("#quiz-answer", Input)
        box.value = "x\x1b[2Jy"  # pasted with an escape sequence in it
        await pilot.press("enter", "escape", "v")
        assert app.store.quiz_rows("q")[0].answer == "x\x1b[2Jy"  # stored as typed
        verdict = widget_text(app, "#quiz-verdict")
        assert "You answered x[2Jy." in verdict and "\x1b" not in verdict  # drawn as text


async def test_review_with_nothing_due_says_so_and_opens_the_course(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app(REVIEW_ID)
    async with running(app, notifications=True) as pilot:
        # app.notices keeps every notice shown: the notice itself goes after 5 s, which a
        # loaded machine can take to get here
        assert await until(
            pilot,
            lambda: (
                app.current is not None and "Nothing is due for review right now." in app.notices
            ),
        )
        assert app.current is not None and app.current.id == "word-by-word"


async def test_a_store_that_fails_loses_nothing_and_says_so(
    build_app: Callable[..., CourseApp],
) -> None:
    import sqlite3

    app = build_app("first-check")
    async with running(app) as pilot:
        quiz = app.query_one(QuizView)
        real_save = quiz.recorder.save

        def failing_save(*args: object) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        quiz.recorder.save = failing_save  # type: ignore[method-assign]
        await pilot.press("enter", "2", "enter")
        text = await quiz_text(pilot)
        assert "Your answer could not be saved (disk I/O error). Try again." in text
        assert "Correct" not in text and "<- correct" not in text
        assert quiz.session is not None and quiz.session.state.tries_used == 0
        quiz.recorder.save = real_save  # type: ignore[method-assign]
        await pilot.press("enter")
        assert "Correct. First try." in await quiz_text(pilot)
        assert stored(app, "first-check") == [(1, "2", "right", 1)]


async def test_a_finished_pass_of_many_questions_lists_only_the_first_misses(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    """2,000 missed questions listed in full (as Markdown, a widget per line) froze the
    app for half a minute. The first few are listed, then how many more."""
    from tui_course.progress.store import ProgressStore
    from tui_course.render.quiz import MAX_LISTED_MISSES

    question = '[[question]]\nkind = "text"\nprompt = "P{n}"\nanswer = "a"\nexplanation = "e"\n\n'
    quiz = 'id = "q"\ntitle = "Q"\n\n' + "".join(question.format(n=n) for n in range(2000))
    root = _content(tmp_path / "content", quiz)
    data = tmp_path / "data"
    with ProgressStore(data) as store:  # a first pass finished with every question skipped
        store.finish_run(store.start_run("q", 2000))
    app = build_app("q", content=root, data=data)
    async with running(app) as pilot:
        text = widget_text_of_prompt(app)
        assert "First-try score: 0 of 2000." in text
        assert f"- {MAX_LISTED_MISSES}. P{MAX_LISTED_MISSES - 1}" in text
        assert f"P{MAX_LISTED_MISSES}\n" not in text
        assert f"and {2000 - MAX_LISTED_MISSES} more" in text
        await pilot.press("r")  # a retry of all of them still starts
        assert "Question 1 of 2000" in await quiz_text(pilot)


def widget_text_of_prompt(app: CourseApp) -> str:
    """The text of the summary as drawn."""
    return str(app.query_one("#quiz-summary", Static).render())


async def test_a_hint_given_for_a_wrong_answer_shows_once(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("by-hand")
    async with running(app) as pilot:
        await pilot.press("enter")
        # a student types once the box is there: keys sent while it mounts go elsewhere
        assert await until(pilot, lambda: app.query_one("#quiz-answer", Input).has_focus)
        await pilot.press(*"0.5", "enter")  # no mistake matches 0.5: the hint teaches
        assert await until(pilot, lambda: app.query_one(QuizView).run.session.state.tries_used == 1)
        text = await quiz_text(pilot)
        assert "Not yet. 2 tries left." in text
        hint = quiz("by-hand").questions[0].hints[0]
        assert f"*Hint 1 of 3:* {hint}" in text
        assert text.count(hint) == 1
        assert not [teach for teach in app.query("#quiz-teach") if teach.display]


async def test_a_wrong_answer_repeated_after_resuming_costs_no_try(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    app = build_app("first-check", data=data)
    async with running(app) as pilot:
        await pilot.press("enter", "4", "enter")  # q1 wrong on try 1, then leave
        assert "Not yet. 2 tries left." in await quiz_text(pilot)
    again = build_app("first-check", data=data)
    async with running(again) as pilot:
        await pilot.press("4", "enter")  # the same wrong answer as before leaving
        text = await quiz_text(pilot)
        assert "You tried that one already: it costs no try." in text
        assert "2 of 3 tries left" in text
        assert stored(again, "first-check") == [(1, "4", "wrong", 1)]


async def test_a_review_question_keeps_its_number_in_its_quiz(
    build_app: Callable[..., CourseApp],
) -> None:
    clock = [datetime(2026, 11, 30, 9, 0, tzinfo=UTC)]
    app = build_app("first-check")
    app.now = lambda: clock[0]
    async with running(app) as pilot:
        await pilot.press("enter", "2", "enter", "enter", "v", "enter", "right")  # q2, q3 missed
        clock[0] += timedelta(minutes=2)
        app.refresh_outline()
        await app.open_item(REVIEW_ID)
        text = await quiz_text(pilot)
        assert "Question 1 of 2 (review, from first-check)" in text
        second = quiz("first-check").questions[1].prompt
        assert f"**2.** {second[:30]}" in text  # first-check's question 2


async def test_options_are_shuffled_for_the_student_and_the_option_is_stored(
    build_app: Callable[..., CourseApp],
) -> None:
    from tui_course.content.shuffle import option_id

    app = build_app("first-check", shuffle=True)
    async with running(app) as pilot:
        await pilot.press("enter")
        session = app.query_one(QuizView).session
        assert session is not None and session.student_key is not None
        shown = session.question
        file_question = session.questions[0]
        assert sorted(shown.options) == sorted(file_question.options)
        right = shown.options[shown.answer - 1]
        assert right == file_question.options[file_question.answer - 1]  # the key is mapped
        rows = [str(row.render()) for row in app.query_one(QuizView).query(".option-text")]
        assert [" ".join(r.split()) for r in rows] == [
            " ".join(option.split()) for option in shown.options
        ]  # what is drawn is the shown order
        await pilot.press(str(shown.answer), "enter")
        assert "Correct. First try." in await quiz_text(pilot)
        assert stored(app, "first-check") == [(1, str(file_question.answer), "right", 1)]
        assert app.store.quiz_rows("first-check")[0].answer == option_id(right)  # the option


async def test_no_h_hint_where_the_question_has_none(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    root = _content(
        tmp_path / "content",
        """id = "q"
title = "Q"

[[question]]
kind = "text"
prompt = "Name it"
answer = "it"
explanation = "It is it."

[[question]]
kind = "text"
prompt = "Name that"
answer = "that"
hints = ["It is that."]
explanation = "It is that."
""",
    )
    app = build_app("q", content=root)
    async with running(app, size=(100, 30)) as pilot:
        await pilot.press("enter", "escape")
        screen = await shown(pilot)
        assert "h hint" not in screen and "h Hint" not in screen
        await pilot.press("right")  # skip to the one with a hint
        await pilot.pause()
        screen = await shown(pilot)
        assert "h hint" in screen or "h Hint" in screen


async def test_the_right_numbers_in_another_form_cost_no_try(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("by-hand")
    async with running(app) as pilot:
        session = app.query_one(QuizView).session
        assert session is not None
        shape = next(i for i, q in enumerate(session.questions) if "output shape" in q.prompt)
        await pilot.press("enter")
        for question in session.questions[:shape]:  # skip: Esc leaves an answer box first
            boxed = question.kind.value in ("numeric", "text")
            await pilot.press(*(["escape"] if boxed else []), "right")
            session = app.query_one(QuizView).session  # the view keeps a copy per change
        assert session is not None and "output shape" in session.question.prompt
        app.query_one("#quiz-answer", Input).focus()
        await pilot.press(*"2 x 10 x 256", "enter")
        text = await quiz_text(pilot)
        assert "Write the answer in the form (a, b, c): this costs no try." in text
        session = app.query_one(QuizView).session
        assert session is not None and session.state.tries_used == 0
        assert stored(app, "by-hand")[-1][2] == "skipped"  # nothing stored for it


async def test_a_quiz_view_removed_while_it_opens_draws_nothing(
    build_app: Callable[..., CourseApp],
) -> None:
    """The app quitting while a quiz opens removes the view under its draw: the draw
    stops there instead of raising (NoScreen ended a run of the suite, and would end a
    student's quit with a crash report)."""
    app = build_app()
    async with running(app, size=(80, 24)) as pilot:
        await app.open_item("first-check")
        await pilot.pause()
        view = app.query_one(QuizView)
        session = view.session
        assert session is not None
        await view.remove()
        await view.start(session)  # a new pass, drawn for a view no longer on any screen
        assert not view.is_attached


async def test_a_quiz_view_removed_while_its_parts_mount_stops_there(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case the suite met: the parts drawn, the view gone before the footer's keys."""
    draw_parts = QuizView._draw_parts

    async def parts_then_removed(self: QuizView, run: QuizRun, moved: bool) -> None:
        await draw_parts(self, run, moved)
        await self.remove()

    monkeypatch.setattr(QuizView, "_draw_parts", parts_then_removed)
    app = build_app()
    async with running(app, size=(80, 24)) as pilot:
        await app.open_item("first-check")  # raised NoScreen from refresh_bindings
        await pilot.pause()
        assert not app.query(QuizView)
