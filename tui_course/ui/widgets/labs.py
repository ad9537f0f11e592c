"""The built-in lab screens: a few lines of guidance above a live, editable figure.

One factory per lab, named by the lab's entry in content/labs.py; make_lab looks it up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static

from tui_course import specs
from tui_course.content.models import Lab
from tui_course.maths.explore import AttentionSetup
from tui_course.progress.store import ProgressStore
from tui_course.ui.widgets.attention_view import AttentionView
from tui_course.ui.widgets.pe_view import PEView
from tui_course.ui.widgets.training_panel import RunFactory, TrainingPanel

ATTENTION_GUIDE = (
    f"Type a sentence (up to {specs.SENTENCE_WORDS.high} words); rows are queries. "
    "Esc or Tab leaves the box, then up/down pick the query and s c m e flip the switches."
)
REAL_GUIDE = (
    "all-MiniLM-L6-v2, a pretrained 6-layer, 12-head encoder, reads your sentence. Esc leaves "
    "the box; up/down pick the query, left/right the head, < > the layer, g all heads, w whole "
    "words. Tab to the last box to ask which heads link two words."
)
PE_GUIDE = "Rows are positions, columns dimensions. +/- positions, [ ] d_model, up/down compare."


class LabView(VerticalScroll, can_focus=False):
    """Not focusable itself, so Tab moves between the figure and its text box."""

    DEFAULT_CSS = """
    LabView {
        padding: 0 1 0 0;
        height: 1fr;
    }
    LabView .lab-guide {
        color: $text-muted;
        margin-bottom: 1;
    }
    """

    def __init__(
        self,
        guide: str,
        figure: Widget,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
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


@dataclass(frozen=True)
class LabNeeds:
    """What a lab's screen may need from the app: the training lab starts runs, asks
    whether Keras can run here and keeps finished runs in the store."""

    training_runs: RunFactory | None = None
    extra_installed: Callable[[], bool] | None = None
    store: ProgressStore | None = None


def make_lab(
    lab: Lab,
    training_runs: RunFactory | None = None,
    extra_installed: Callable[[], bool] | None = None,
    store: ProgressStore | None = None,
    *,
    id: str | None = None,
) -> Widget:
    """The lab's screen, made by the factory its registry entry names (content/labs.py).
    `extra_installed` answers "can Keras run here?" (default: look for the train extra);
    tests that drive a fake child pass their own, so they pass without the extra."""
    from tui_course.content.labs import lab_kind
    from tui_course.content.named import named

    factory = named(lab_kind(lab.id).widget)
    view: Widget = factory(LabNeeds(training_runs, extra_installed, store), id)
    return view


def attention_lab(needs: LabNeeds, id: str | None) -> Widget:
    figure = AttentionView(
        AttentionSetup("The train left the station on time"), row=1, editable=True
    )
    return LabView(ATTENTION_GUIDE, figure, id=id)


def real_model_lab(needs: LabNeeds, id: str | None) -> Widget:
    from tui_course.ui.widgets.real_model_view import RealModelView

    return LabView(REAL_GUIDE, RealModelView(), id=id)


def pe_lab(needs: LabNeeds, id: str | None) -> Widget:
    return LabView(PE_GUIDE, PEView(positions=10, dim=8), id=id)


def training_lab(needs: LabNeeds, id: str | None) -> Widget:
    from tui_course.training.runner import TRAIN_EXTRA_MISSING, train_extra_installed

    if needs.training_runs is None:
        raise ValueError("the training lab needs a way to start runs")
    installed = (needs.extra_installed or train_extra_installed)()
    missing = None if installed else f"Training {TRAIN_EXTRA_MISSING}."
    return TrainingPanel(needs.training_runs, missing, needs.store, id=id)
