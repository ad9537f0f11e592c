"""The built-in lab screens: a few lines of guidance above a live, editable figure."""

from __future__ import annotations

from typing import Self

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static

from tui_course.content.models import Lab
from tui_course.maths.explore import AttentionSetup
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.pe_view import PEView
from tui_course.ui.widgets.training_panel import RunFactory, TrainingPanel

ATTENTION_GUIDE = (
    "Type a sentence (up to 64 words); rows are queries. Esc or Tab leaves the box, "
    "then up/down pick the query and s c m e flip the switches."
)
PE_GUIDE = "Rows are positions, columns dimensions. +/- positions, [ ] d_model, up/down compare."


class LabView(VerticalScroll, can_focus=False):
    """Not focusable itself, so Tab moves between the figure and its text box."""

    def __init__(self, guide: str, figure: Widget, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.guide = guide
        self.figure = figure

    def compose(self) -> ComposeResult:
        yield Static(self.guide, classes="lab-guide", markup=False)
        yield self.figure

    def focus(self, scroll_visible: bool = True) -> Self:
        """Typing is the first thing to do in a lab: start in its text box if it has one."""
        boxes = self.figure.query(Input)
        (boxes.first() if boxes else self.figure).focus(scroll_visible)
        return self


def make_lab(
    lab: Lab, training_runs: RunFactory | None = None, **kwargs: object
) -> LabView | TrainingPanel:
    if lab.id == "attention-lab":
        figure: Widget = AttentionView(
            AttentionSetup("The train left the station on time"), row=1, editable=True
        )
        return LabView(ATTENTION_GUIDE, figure, **kwargs)
    if lab.id == "pe-lab":
        return LabView(PE_GUIDE, PEView(positions=10, dim=8), **kwargs)
    if lab.id == "training-lab":
        from tui_course.training.runner import TRAIN_EXTRA_MISSING, train_extra_installed

        if training_runs is None:
            raise ValueError("the training lab needs a way to start runs")
        missing = None if train_extra_installed() else f"Training {TRAIN_EXTRA_MISSING}."
        return TrainingPanel(training_runs, missing, **kwargs)
    raise ValueError(f"no lab called {lab.id}")
