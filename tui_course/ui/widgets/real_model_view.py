"""A pretrained model's heads in the app: the Real-model lab and the lessons' contrast figure.

The forward pass runs in a thread (asyncio.to_thread inside a worker), never on the
UI thread, and one at a time: keys typed during a pass wait for it, then the newest
sentence runs (a fast typist on a shared lab server starts two passes, not twenty).
All the state is a render.real_model.LabState; the widget only draws it.
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

from tui_course.render.real_model import LabState, ModelAttention
from tui_course.terminal import locale_is_utf8
from tui_course.ui.widgets.heatmap_view import HeatmapView

if TYPE_CHECKING:
    from tui_course.realmodel import RealAttention

LAB_SENTENCE = "The animal didn't cross the street because it was too tired."
MODEL_VIEW_TOKENS = 16


def _cache_dir(widget: Any) -> Path | None:
    settings = getattr(widget.app, "settings", None)
    return getattr(settings, "data_dir", None)


def run_real_model(sentence: str, cache_dir: Path | None) -> RealAttention | str:
    """Load (once) and run the model; a ModelError comes back as its one-line text.

    Called in a worker thread.
    """
    from tui_course.realmodel import ModelError, load_model

    try:
        return load_model(None, cache_dir).attend(sentence)
    except ModelError as error:
        return str(error)
    except (OSError, MemoryError, ValueError) as error:  # the lab must not hang on "loading"
        return str(ModelError(f"the model could not run ({type(error).__name__}: {error})"))


_EMPTY_SENTENCE = "Type a sentence in the box above: the model reads it as you type."


class RealModelView(Vertical, can_focus=True):
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
        self, sentence: str = LAB_SENTENCE, query_word: str | None = "it", **kwargs: object
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.sentence = sentence
        self.start_query = query_word  # the first result's query, when the sentence has it
        self.state = LabState()
        self.result: RealAttention | None = None
        self.loading = True
        self._generation = 0  # bumped by every new sentence
        self._computing = False  # a forward pass is running in its thread

    def compose(self) -> ComposeResult:
        yield Input(self.sentence, placeholder="type a sentence", classes="real-sentence")
        yield Static("loading the model...", classes="real-status", markup=False)
        with Vertical(classes="real-figure"):
            yield HeatmapView(_empty(), [], None, classes="real-head-view")
            with HorizontalScroll(classes="real-model-view"):
                yield Static("", classes="real-model-map", markup=False)
        yield Static("", classes="real-bars", markup=False)
        yield Input(
            placeholder="which heads link A to B? type two words, then Enter",
            classes="real-link",
        )
        yield Static("", classes="real-links", markup=False)
        yield Static("", classes="real-notes", markup=False)

    def on_mount(self) -> None:
        self._draw()
        self.compute(self.sentence)

    # computing off the UI thread

    def compute(self, sentence: str) -> None:
        self.sentence = sentence
        self._generation += 1
        self.loading = True
        if not self._computing:  # else the running pass picks the newest sentence up
            self.run_worker(self._compute_newest(), group="real-model", exit_on_error=False)

    async def _compute_newest(self) -> None:
        self._computing = True
        try:
            while True:
                generation, sentence = self._generation, self.sentence
                outcome = await asyncio.to_thread(run_real_model, sentence, _cache_dir(self))
                if generation == self._generation:
                    break  # no newer sentence was typed meanwhile
        finally:
            self._computing = False
        self.loading = False
        if isinstance(outcome, str):
            self.result = None
            self.state = self.state.with_problem(outcome)
        else:
            self.result = outcome
            first = self.start_query if self.state.attention is None else None
            self.state = self.state.with_attention(self._attention(outcome), outcome.notes, first)
        self._draw()

    def _attention(self, result: RealAttention) -> ModelAttention:
        tokens = result.tokens
        return ModelAttention.of(
            tokens.pieces, tokens.words, tokens.word_of_piece, result.attentions, self.state.merge
        )

    # drawing

    def _draw(self) -> None:
        state = self.state
        status = self.query_one(".real-status", Static)
        heatmap = self.query_one(".real-head-view", HeatmapView)
        model_view = self.query_one(".real-model-view", HorizontalScroll)
        model_map = self.query_one(".real-model-map", Static)
        bars = self.query_one(".real-bars", Static)
        links = self.query_one(".real-links", Static)
        notes = self.query_one(".real-notes", Static)
        attention = state.attention
        if attention is None:
            status.update(Text("loading the model..." if self.loading else "no figure"))
            heatmap.display = model_view.display = False
            bars.update("")
            links.update("")
            if not self.sentence.strip():  # nothing to read is not a model that cannot run
                note = _EMPTY_SENTENCE
            else:
                note = f"The real model cannot run here: {state.problem}" if state.problem else ""
            notes.update(Text(note))
            return
        from tui_course.render.real_model import model_view_lines, query_bars

        query = attention.labels[state.query]
        layers, heads = attention.layers, attention.heads
        where = f"layer {state.layer + 1}/{layers}, head {state.head + 1}/{heads}"
        view = f"all {layers}x{heads} heads" if state.model_view else where
        tokens = "words" if attention.merged else "word pieces"
        busy = " (computing...)" if self.loading else ""
        status.update(Text(f"{view}, query '{query}', {tokens}{busy}"))
        heatmap.display = not state.model_view
        model_view.display = state.model_view
        if state.model_view:
            width = max(self.content_region.width, 40)
            lines = model_view_lines(attention, state.query, width, MODEL_VIEW_TOKENS)
            model_map.update(Text("\n".join(lines), no_wrap=True))
            bars.update("")
        else:
            heatmap.show(attention.weights[state.layer, state.head], attention.labels, state.query)
            bars.update(
                Text(
                    query_bars(
                        attention, state.layer, state.head, state.query, not locale_is_utf8()
                    )
                )
            )
        links.update(Text("\n".join(state.links)))
        notes.update(Text("\n".join(state.notes)))

    # what tests and the app read

    @property
    def query_word(self) -> str | None:
        attention = self.state.attention
        return attention.labels[self.state.query] if attention else None

    # actions: one state change each

    def _change(self, state: LabState) -> None:
        self.state = state
        self._draw()

    def action_move_query(self, step: int) -> None:
        self._change(self.state.move_query(step))

    def action_move_head(self, step: int) -> None:
        self._change(self.state.move_head(step))

    def action_move_layer(self, step: int) -> None:
        self._change(self.state.move_layer(step))

    def action_toggle_view(self) -> None:
        self._change(self.state.toggle_view())

    def action_toggle_merge(self) -> None:
        """Pieces <-> words, keeping the query on the same typed word (its first piece)."""
        from dataclasses import replace

        merged = replace(self.state, merge=not self.state.merge)
        if self.result is None or self.state.attention is None:
            self._change(merged)
            return
        word_of_piece = self.result.tokens.word_of_piece
        if merged.merge:
            query = word_of_piece[self.state.query]
        else:
            query = word_of_piece.index(self.state.query)
        self.state = merged
        state = merged.with_attention(self._attention(self.result), merged.notes)
        self._change(replace(state, query=query))

    @on(HeatmapView.RowClicked)
    def _row_clicked(self, event: HeatmapView.RowClicked) -> None:
        event.stop()
        self.focus()
        if self.state.attention is not None:
            self._change(self.state.move_query(event.row - self.state.query))

    @on(Input.Changed, ".real-sentence")
    def _sentence_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.compute(event.value)

    @on(Input.Submitted, ".real-link")
    def _link_asked(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.split()
        if len(words) == 3 and words[1].casefold() == "to":
            words = [words[0], words[2]]
        if len(words) != 2:
            self.state = self.state.with_links(("type two words of the sentence, e.g. it animal",))
        else:
            self.state = self.state.link(words[0], words[1])
        self._draw()


def _empty() -> Any:
    import numpy as np

    return np.zeros((0, 0))


NOTE_COLUMNS = 64  # fits a lesson at 80 columns beside the focus bar and the scrollbar


class RealAttentionFigure(Vertical):
    """A lesson's ```real-attention``` block: the toy vectors' weights for a query word, then
    the real model's on the same sentence (computed in a thread when the model is present)."""

    DEFAULT_CSS = """
    RealAttentionFigure { height: auto; }
    RealAttentionFigure .real-contrast-scroll { height: auto; scrollbar-size-horizontal: 1; }
    RealAttentionFigure .real-contrast { width: auto; }
    """

    def __init__(self, params: dict[str, Any], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.params = params
        self.real: ModelAttention | None = None
        self.compare: ModelAttention | None = None  # the block's second sentence, if any
        self.problem: str | None = None
        self.loading = True

    def compose(self) -> ComposeResult:
        with HorizontalScroll(classes="real-contrast-scroll"):
            yield Static(self._text(), classes="real-contrast", markup=False)

    def on_mount(self) -> None:
        self.run_worker(self._compute(), exclusive=True, group="real-figure", exit_on_error=False)

    async def _compute(self) -> None:
        sentences = [
            self.params["sentence"],
            *([self.params["compare"]] * ("compare" in self.params)),
        ]
        merged: list[ModelAttention] = []
        for sentence in sentences:
            outcome = await asyncio.to_thread(run_real_model, sentence, _cache_dir(self))
            if isinstance(outcome, str):
                self.problem = outcome
                break
            tokens = outcome.tokens
            merged.append(
                ModelAttention.of(
                    tokens.pieces, tokens.words, tokens.word_of_piece, outcome.attentions, True
                )
            )
        self.loading = False
        if len(merged) == len(sentences):
            self.real = merged[0]
            self.compare = merged[1] if len(merged) > 1 else None
        self.query_one(".real-contrast", Static).update(Text(self._text(), no_wrap=True))

    def _text(self) -> str:
        from tui_course.render.blocks import BlockError, real_attention_lines

        try:
            lines = real_attention_lines(self.params, self.real, not locale_is_utf8(), self.compare)
        except BlockError as error:
            # The block's layer or head is past the loaded model's own count (validate cannot
            # know it without the model): say so, or the figure would "compute" forever.
            lines = real_attention_lines(self.params, None, not locale_is_utf8())
            self.problem = str(error).removeprefix("the real model: ")
        if self.loading:
            lines += ["", "computing the real model's weights..."]
        elif self.problem:  # prose, wrapped: the figure's own lines scroll, this must not
            note = f"The real model is not shown: {self.problem}"
            lines += ["", *textwrap.wrap(note, NOTE_COLUMNS, break_on_hyphens=False)]
        return "\n".join(lines)
