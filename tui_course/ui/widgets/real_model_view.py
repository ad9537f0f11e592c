"""A pretrained model's heads in the app: the Real-model lab and the lessons' contrast figure.

The forward pass runs in a thread (asyncio.to_thread inside a worker), never on the
UI thread, and one at a time: keys typed during a pass wait for it, then the newest
sentence runs (a fast typist on a shared lab server starts two passes, not twenty).
Both are StateViews: the lab of a views.real_model.RealModelLab, the lesson figure of a
views.real_model.RealFigure. A pass starts from the change that needs it (mount, a typed
sentence), never from a draw, and its outcome comes back as one more change.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.widgets import Input, Static

from tui_course import specs
from tui_course.realmodel.attention import ModelAttention, attention_of
from tui_course.render.real_model import ModelViewMap, lab_notes, lab_status, query_bars
from tui_course.runtime.terminal import locale_is_utf8
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.state_view import StateView
from tui_course.ui.widgets.text_box import TextBox
from tui_course.views.real_model import LabState, RealFigure, RealModelLab

if TYPE_CHECKING:
    from tui_course.content.blocks.real_attention import RealAttentionParams
    from tui_course.realmodel.loading import RealAttention

LAB_SENTENCE = "The animal didn't cross the street because it was too tired."
MODEL_VIEW_TOKENS = 16


def model_cache_dir(widget: Any) -> Path | None:
    """Where the app keeps the model's checksums: its data folder."""
    settings = getattr(widget.app, "settings", None)
    return getattr(settings, "data_dir", None)


def run_real_model(sentence: str, cache_dir: Path | None) -> RealAttention | str:
    """The service's forward pass (realmodel.service), called in a worker thread; the
    package is imported on first use, not when the app starts."""
    from tui_course.realmodel.service import run_real_model as forward_pass

    return forward_pass(sentence, cache_dir)


class RealModelView(StateView[RealModelLab], Vertical, can_focus=True):
    """Type a sentence; move between layers, heads and query words; ask which heads link two
    words."""

    DEFAULT_CSS = """
    RealModelView { height: auto; }
    RealModelView .real-status, RealModelView .real-notes { color: $text-muted; }
    RealModelView .real-figure { height: auto; margin: 1 0; }
    RealModelView .real-model-view { height: auto; scrollbar-size-horizontal: 1; }
    RealModelView .real-model-map { width: auto; }
    RealModelView .real-links { margin-bottom: 1; }
    """

    HELP_TITLE = "Real-model lab"  # its section in the help (screens/help.py)
    HELP_RANK = 80
    BINDINGS = [
        Binding("up,k", "move_query(-1)", "Query up", show=False, tooltip="The word above"),
        Binding("down,j", "move_query(1)", "Query down", show=False, tooltip="The word below"),
        Binding("left", "move_head(-1)", "Head -", show=False, tooltip="The previous head"),
        Binding("right", "move_head(1)", "Head +", show=False, tooltip="The next head"),
        # Not [ ] (d_model in the PE figure) nor v (show the answer in a quiz): one meaning
        # per key. < and > step the layer; , and . are the same keys unshifted.
        Binding("less_than_sign,comma", "move_layer(-1)", "Layer -", tooltip="The layer below"),
        Binding(
            "greater_than_sign,full_stop", "move_layer(1)", "Layer +", tooltip="The layer above"
        ),
        Binding("g", "toggle_view", "Grid", tooltip="One head, or all heads as a grid of maps"),
        Binding("w", "toggle_merge", "Words", tooltip="Word pieces, or whole words"),
    ]

    def __init__(
        self,
        sentence: str = LAB_SENTENCE,
        query_word: str | None = "it",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        lab = RealModelLab(sentence, query_word, LabState(), attention_of)
        super().__init__(lab, name=name, id=id, classes=classes)
        self._grid: ModelViewMap | None = None  # the grid drawn (laid out once per width)
        # The parts a draw fills in, made once and held (never looked up per draw).
        self._status = Static("loading the model...", classes="real-status", markup=False)
        self._heatmap = HeatmapView(_empty(), [], None, classes="real-head-view")
        self._model_view = HorizontalScroll(classes="real-model-view")
        self._model_map = Static("", classes="real-model-map", markup=False)
        self._bars = Static("", classes="real-bars", markup=False)
        self._links = Static("", classes="real-links", markup=False)
        self._notes = Static("", classes="real-notes", markup=False)

    def compose(self) -> ComposeResult:
        yield TextBox(
            self.state.sentence,
            placeholder="type a sentence",
            classes="real-sentence",
            max_length=specs.SENTENCE_CHARS,
        )
        yield self._status
        with Vertical(classes="real-figure"):
            yield self._heatmap
            with self._model_view:
                yield self._model_map
        yield self._bars
        yield TextBox(
            placeholder="which heads link A to B? type two words, then Enter",
            classes="real-link",
            max_length=specs.SENTENCE_CHARS,
        )
        yield self._links
        yield self._notes

    def on_mount(self) -> None:
        self._compute()

    # what tests and the app read

    @property
    def figure(self) -> LabState:
        """The figure's own state (layer, head, query, links)."""
        return self.state.figure

    @property
    def sentence(self) -> str:
        return self.state.sentence

    @property
    def query_word(self) -> str | None:
        return self.state.query_word

    # computing off the UI thread, one pass at a time

    def _compute(self) -> None:
        if not self.state.running:  # else the running pass picks the newest sentence up
            self.state = self.state.started()
            self.run_worker(self._compute_newest(), group="real-model", exit_on_error=False)

    async def _compute_newest(self) -> None:
        """Passes until one is for the newest sentence (a fast typist starts two, not
        twenty); each outcome is one change of the lab."""
        try:
            while True:
                generation, sentence = self.state.generation, self.state.sentence
                outcome = await asyncio.to_thread(run_real_model, sentence, model_cache_dir(self))
                self.state = self.state.computed(generation, outcome)
                if not self.state.loading:
                    return
                self.state = self.state.started()
        finally:
            self.state = self.state.stopped()  # cancelled (the lab closed) or failed

    # drawing

    def draw(self, old: RealModelLab | None, new: RealModelLab) -> None:
        self.loading = new.loading  # Textual's own indicator over the lab while it computes
        figure = new.figure
        attention = figure.attention
        self._status.update(Text(lab_status(figure, new.loading)))
        self._notes.update(Text(lab_notes(figure, new.sentence)))
        heatmap, model_view, bars, links = self._heatmap, self._model_view, self._bars, self._links
        if attention is None:
            heatmap.display = model_view.display = False
            bars.update("")
            links.update("")
            return
        heatmap.display = not figure.model_view
        model_view.display = figure.model_view
        if figure.model_view:
            grid = self._grid
            if grid is None or grid.attention is not attention or grid.query != figure.query:
                grid = self._grid = ModelViewMap(attention, figure.query, MODEL_VIEW_TOKENS)
                self._model_map.update(grid)
            bars.update("")
        else:
            weights = attention.weights[figure.layer, figure.head]
            heatmap.show(weights, attention.labels, figure.query)
            ascii_only = not locale_is_utf8()
            bars.update(
                Text(query_bars(attention, figure.layer, figure.head, figure.query, ascii_only))
            )
        links.update(Text("\n".join(figure.links)))

    # actions: one state change each

    def action_move_query(self, step: int) -> None:
        self.state = self.state.move_query(step)

    def action_move_head(self, step: int) -> None:
        self.state = self.state.move_head(step)

    def action_move_layer(self, step: int) -> None:
        self.state = self.state.move_layer(step)

    def action_toggle_view(self) -> None:
        self.state = self.state.toggle_view()

    def action_toggle_merge(self) -> None:
        self.state = self.state.toggle_merge()

    @on(HeatmapView.RowClicked)
    def _row_clicked(self, event: HeatmapView.RowClicked) -> None:
        event.stop()
        self.focus()
        self.state = self.state.select_row(event.row)

    @on(Input.Changed, ".real-sentence")
    def _sentence_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.typed(event.value)
        self._compute()

    @on(Input.Submitted, ".real-link")
    def _link_asked(self, event: Input.Submitted) -> None:
        event.stop()
        self.state = self.state.ask_link(event.value)


def _empty() -> Any:
    import numpy as np

    return np.zeros((0, 0))


NOTE_COLUMNS = 64  # fits a lesson at 80 columns beside the focus bar and the scrollbar


class RealAttentionFigure(StateView[RealFigure], Vertical):
    """A lesson's ```real-attention``` block: the toy vectors' weights for a query word, then
    the real model's on the same sentence (computed in a thread when the model is present)."""

    DEFAULT_CSS = """
    RealAttentionFigure { height: auto; }
    RealAttentionFigure .real-contrast-scroll { height: auto; scrollbar-size-horizontal: 1; }
    RealAttentionFigure .real-contrast { width: auto; }
    """

    def __init__(
        self,
        params: RealAttentionParams,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(RealFigure(), name=name, id=id, classes=classes)
        self.params = params
        self._contrast = Static(classes="real-contrast", markup=False)

    def compose(self) -> ComposeResult:
        with HorizontalScroll(classes="real-contrast-scroll"):
            yield self._contrast

    def on_mount(self) -> None:
        self.run_worker(self._compute(), exclusive=True, group="real-figure", exit_on_error=False)

    async def _compute(self) -> None:
        sentences = [self.params.sentence]
        if self.params.compare is not None:
            sentences.append(self.params.compare)
        merged: list[ModelAttention] = []
        for sentence in sentences:
            outcome = await asyncio.to_thread(run_real_model, sentence, model_cache_dir(self))
            if isinstance(outcome, str):
                self.state = self.state.failed(outcome)
                return
            merged.append(attention_of(outcome, merge=True))
        self.state = self.state.computed(merged[0], merged[1] if len(merged) > 1 else None)

    def draw(self, old: RealFigure | None, new: RealFigure) -> None:
        self._contrast.update(Text(self._text(new), no_wrap=True))

    def _text(self, figure: RealFigure) -> str:
        from tui_course.render.blocks import BlockError, real_attention_lines

        ascii_only = not locale_is_utf8()
        problem = figure.problem
        try:
            lines = real_attention_lines(self.params, figure.real, ascii_only, figure.compare)
        except BlockError as error:
            # The block's layer or head is past the loaded model's own count (validate cannot
            # know it without the model): say so, or the figure would "compute" forever.
            lines = real_attention_lines(self.params, None, ascii_only)
            problem = str(error).removeprefix("the real model: ")
        if figure.loading:
            lines += ["", "computing the real model's weights..."]
        elif problem:  # prose, wrapped: the figure's own lines scroll, this must not
            note = f"The real model is not shown: {problem}"
            lines += ["", *textwrap.wrap(note, NOTE_COLUMNS, break_on_hyphens=False)]
        return "\n".join(lines)
