"""A quiz's next question changes what is on screen in place: the footer's keys get their
new words in the key widgets already there, and the outline relabels only the rows whose
text changed (nothing mounted again, no whole outline rebuilt for one mark); a lesson's
prose is parsed once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets._footer import FooterKey

from tests.ui.conftest import laid_out, running, shown, until
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.footer import CourseFooter
from tui_course.ui.widgets.lesson_view import LessonView
from tui_course.ui.widgets.outline import Outline


def footer_keys(app: CourseApp) -> list[FooterKey]:
    """The keys the footer shows (a key no longer wanted is hidden, kept for later)."""
    return [key for key in app.query_one(CourseFooter).query(FooterKey) if key.display]


def every_key_widget(app: CourseApp) -> set[FooterKey]:
    return set(app.query_one(CourseFooter).query(FooterKey))


def descriptions(app: CourseApp) -> set[str]:
    return {key.description for key in footer_keys(app)}


async def test_the_next_question_draws_its_keys_into_the_footer_it_has(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(100, 30)) as pilot:
        await pilot.press("enter")
        assert await until(pilot, lambda: "Submit" in descriptions(app))
        widgets = every_key_widget(app)
        await pilot.press("2", "enter")  # right: the question closes
        assert await until(pilot, lambda: "Next question" in descriptions(app))
        assert "Submit" not in descriptions(app) and "Skip" not in descriptions(app)
        await pilot.press("right")
        assert await until(pilot, lambda: "Submit" in descriptions(app))
        assert "Skip" in descriptions(app) and "Next question" not in descriptions(app)
        text = await shown(pilot)
        assert "Question 2 of 3" in text and "Skip" in text and "Next question" not in text
        # Closing and going on drew the new words into the same key widgets: none mounted.
        assert every_key_widget(app) == widgets


async def test_a_disabled_key_is_drawn_dim_and_enabled_again_in_place(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(100, 30)) as pilot:
        await pilot.press("enter")
        assert await until(pilot, lambda: "Submit" in descriptions(app))
        for key in footer_keys(app):  # what the footer shows matches each key's state
            assert key.has_class("-disabled") == key._disabled
        await pilot.press("2", "enter", "right")
        assert await until(pilot, lambda: "Skip" in descriptions(app))
        for key in footer_keys(app):
            assert key.has_class("-disabled") == key._disabled


async def test_the_outline_relabels_only_the_rows_that_changed(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(120, 30)) as pilot:
        outline = app.query_one(Outline)
        options = [outline.get_option_at_index(i) for i in range(outline.option_count)]
        labels = [str(option.prompt) for option in options]
        quiz_row = next(i for i, option in enumerate(options) if option.id == "first-check")
        highlighted = outline.highlighted

        outline.update_marks(dict(outline.marks), outline.review_due)  # nothing new
        assert [outline.get_option_at_index(i) for i in range(outline.option_count)] == options
        assert [str(option.prompt) for option in options] == labels

        await pilot.press("enter", "2", "enter")  # one question answered: a mark changes
        assert await until(pilot, lambda: str(options[quiz_row].prompt) != labels[quiz_row])
        assert str(options[quiz_row].prompt).startswith("[~] 1/3")
        now = [outline.get_option_at_index(i) for i in range(outline.option_count)]
        assert now == options  # the same rows, relabelled
        changed = [i for i, option in enumerate(now) if str(option.prompt) != labels[i]]
        assert changed == [quiz_row]
        assert outline.highlighted == highlighted


async def test_a_new_review_entry_still_rebuilds_the_rows(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("first-check")
    async with running(app, size=(120, 30)) as pilot:
        outline = app.query_one(Outline)
        count = outline.option_count
        outline.update_marks(dict(outline.marks), 2)
        await pilot.pause()
        assert outline.option_count == count + 1
        assert str(outline.get_option_at_index(0).prompt).strip() == "Review (2 due)"
        assert outline.highlighted_option is not None
        assert outline.highlighted_option.id == "first-check"


async def test_a_lesson_parses_each_prose_part_once(
    build_app: Callable[..., CourseApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each Markdown part of a lesson is made with its text: one parse as it mounts (made
    empty and then updated, it parsed twice, each time in a thread of its own)."""
    from textual.widgets import Markdown

    updates: list[tuple[int, str]] = []
    real = Markdown.update

    def counted(self: Markdown, markdown: str) -> object:
        updates.append((id(self), markdown))
        return real(self, markdown)

    monkeypatch.setattr(Markdown, "update", counted)
    app = build_app("word-by-word")
    async with running(app, size=(120, 30)) as pilot:
        view = app.query_one(LessonView)
        assert await until(pilot, lambda: laid_out(view))
        prose = list(view.query_children(Markdown))
        assert prose and all(part.source for part in prose)
        assert sorted(updates) == sorted((id(part), part.source) for part in prose)
