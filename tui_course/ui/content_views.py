"""The views the content pane mounts the first time they are opened, and keeps with their
state: each lab's (ui/widgets/labs.py says which widget a lab id is) and the quiz view.
Both are imported on first use: most sessions start on a lesson, and start-up is faster."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_course.content.models import Lab
    from tui_course.progress.store import ProgressStore
    from tui_course.study import Study
    from tui_course.training.options import TrainOptions
    from tui_course.training.runner import TrainingRun
    from tui_course.ui.screens.course import CourseScreen
    from tui_course.ui.widgets.quiz_view import QuizView
    from tui_course.ui.widgets.training_panel import RunFactory


def train_extra_installed() -> bool:
    """Whether Keras can run here; tests with a fake training child swap it (see CourseApp)."""
    from tui_course.training.runner import train_extra_installed

    return train_extra_installed()


def training_runs_in(data_dir: Path) -> RunFactory:
    """Training runs that log under the data dir (tests swap the app's for a fake child)."""

    def run(options: TrainOptions) -> TrainingRun:
        from tui_course.training.runner import TrainingRun

        return TrainingRun.for_options(options, data_dir)

    return run


async def lab_view(
    screen: CourseScreen,
    lab: Lab,
    training_runs: RunFactory,
    training_extra_installed: Callable[[], bool],
    store: ProgressStore,
    ascii_only: bool,
) -> Widget:
    """A lab's screen, mounted the first time it is opened and kept (with its state)."""
    from tui_course.ui.widgets.labs import make_lab

    found = screen.query(f"#lab-{lab.id}")
    if found:
        return found.first()
    view = make_lab(
        lab,
        training_runs,
        training_extra_installed,
        store=store,
        id=f"lab-{lab.id}",
    )
    await screen.query_one(ContentSwitcher).mount(view)
    if ascii_only:  # a Select draws its arrows as text, not from a glyph table
        for arrow in view.query(".down-arrow").results(Static):
            arrow.update("v")
        for arrow in view.query(".up-arrow").results(Static):
            arrow.update("^")
    return view


class Folders(Protocol):
    """Where the student's data and the course live (the app's Settings)."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def content_dir(self) -> Path: ...


async def quiz_view(screen: CourseScreen, study: Study, settings: Folders) -> QuizView:
    """The quiz view (the same one for every quiz and the review); its code checks show
    the course's folder empty to student code."""
    from tui_course.ui.widgets.code_exercises import CodeExercises
    from tui_course.ui.widgets.quiz_view import QuizView

    def make() -> QuizView:
        return QuizView(
            study.recorder(),
            exercises=CodeExercises(settings.data_dir, settings.content_dir),
            id="quiz",
        )

    return await screen.content_view(QuizView, make)
