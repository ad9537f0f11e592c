"""The live attention figure: choose the query word, flip the switches, type a sentence."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tui_course import specs
from tui_course.maths.embeddings import SETS
from tui_course.maths.explore import (
    AttentionResult,
    AttentionSetup,
    NoWordsError,
    explore_attention,
)
from tui_course.render.blocks import attention_extras, attention_summary, head_title
from tui_course.terminal import locale_is_utf8
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.item_line import ItemLine

TYPING_PAUSE = 0.3  # seconds without a key before a typed sentence goes to the real model
TYPED_KEPT = 16  # typed sentences whose model answer is kept
EMBEDDING_ORDER = ("toy-train", "toy-cat-sat", "toy-it", "hashed")  # the order `e` cycles


class AttentionView(Vertical, can_focus=True):
    DEFAULT_CSS = """
    AttentionView, AttentionView .attention-heads {
        height: auto;
    }
    AttentionView .attention-controls {
        color: $text-muted;
        margin-bottom: 1;
    }
    AttentionView .head-title {
        text-style: bold;
        margin-top: 1;  /* a blank line after the previous head's legend */
    }
    AttentionView .head-title:first-child {
        margin-top: 0;
    }
    AttentionView .attention-extras {
        margin-top: 1;
    }
    AttentionView .attention-notes {
        color: $text-muted;
        margin-top: 1;
    }
    AttentionView .attention-summary {
        margin-bottom: 1;
    }
    """
    BINDINGS = [
        Binding(
            "up,k", "move(-1)", "Query up", show=False, tooltip="Make the word above the query"
        ),
        Binding(
            "down,j", "move(1)", "Query down", show=False, tooltip="Make the word below the query"
        ),
        Binding(
            "s", "toggle_scale", "Scale", tooltip="Dividing scores by sqrt(head size): on or off"
        ),
        Binding("c", "toggle_causal", "Causal", tooltip="Causal mask: on or off"),
        Binding("m", "cycle_heads", "Heads", tooltip="Number of heads: 1, 2, 4"),
        Binding("e", "cycle_embeddings", "Vectors", tooltip="Embedding set: toy sets or hashed"),
        Binding(
            "percent_sign",
            "toggle_absolute",
            "Shade scale",
            tooltip="Shade on a fixed 0-100 % scale, or up to the largest weight shown",
        ),
    ]

    class QueryChanged(Message):
        """The query word (or the numbers behind it) changed."""

        def __init__(self, view: AttentionView) -> None:
            super().__init__()
            self.view = view

    def __init__(
        self,
        setup: AttentionSetup,
        row: int | None = 0,
        editable: bool = False,
        extras: dict[str, Any] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.setup = setup
        self.row = row if row is not None else 0
        self.editable = editable
        self.extras = extras or {}
        self.result: AttentionResult | None = None
        self.problem: str | None = None
        self.absolute = False  # shading: False up to the largest weight, True 0-100 %
        # A typed sentence no toy set knows: the real model's answer per sentence, or why not
        self.typed_model: dict[str, tuple[AttentionResult, int] | str] = {}

    def compose(self) -> ComposeResult:
        if self.editable:
            yield Input(self.setup.sentence, placeholder="type a sentence", classes="sentence")
        yield ItemLine(classes="attention-controls")
        yield Static(classes="attention-summary", markup=False)
        yield Vertical(classes="attention-heads")
        yield Static(classes="attention-extras", markup=False)
        yield Static(classes="attention-notes", markup=False)

    async def on_mount(self) -> None:
        await self.recompute()

    # what the tests and the app read

    @property
    def query_word(self) -> str | None:
        return self.result.tokens[self.row] if self.result else None

    @property
    def strongest_word(self) -> str | None:
        if self.result is None:
            return None
        return self.result.tokens[self.result.strongest(self.row)]

    # recomputing and drawing

    async def recompute(self) -> None:
        try:
            self.result = explore_attention(self.setup)
            self.problem = None
        except NoWordsError as error:
            self.result, self.problem = None, str(error)
        if self.result is not None and self.editable and self.result.fallback is not None:
            self._use_model_for_typed()
        if self.result is not None:
            self.row = min(self.row, len(self.result.tokens) - 1)
        await self._redraw()

    def _use_model_for_typed(self) -> None:
        """No toy set knows the sentence: show the real model's head when it is installed."""
        sentence = self.setup.sentence
        known = self.typed_model.get(sentence)
        if isinstance(known, tuple):
            result, row = known
            self.result = replace(result, setup=self.setup)
            if self.result.tokens[self.row] in ("[CLS]", "[SEP]"):
                self.row = row
        elif isinstance(known, str) and self.result is not None:
            note = f"The real model is not shown: {known}"
            self.result = replace(self.result, notes=(*self.result.notes, note))
        elif known is None:
            query = self.query_word_of(self.result)
            self.run_worker(self._ask_model(sentence, query), group="typed-model", exclusive=True)

    @staticmethod
    def query_word_of(result: AttentionResult | None) -> str | None:
        return result.tokens[0] if result is not None and result.tokens else None

    async def _ask_model(self, sentence: str, query: str | None) -> None:
        import asyncio

        from tui_course.render.real_model import ModelAttention, typed_sentence_result
        from tui_course.ui.widgets.real_model_view import _cache_dir, run_real_model

        # Typing pauses before the model runs: each key cancels the wait (exclusive worker),
        # so a fast typist on a shared server starts one forward pass, not one per key.
        await asyncio.sleep(TYPING_PAUSE)
        outcome = await asyncio.to_thread(run_real_model, sentence, _cache_dir(self))
        while len(self.typed_model) >= TYPED_KEPT:
            del self.typed_model[next(iter(self.typed_model))]
        if isinstance(outcome, str):
            self.typed_model[sentence] = outcome
        else:
            tokens = outcome.tokens
            attention = ModelAttention.of(
                tokens.pieces, tokens.words, tokens.word_of_piece, outcome.attentions, True
            )
            result, row = typed_sentence_result(self.setup, attention, query)
            self.typed_model[sentence] = (result, row)
            if sentence == self.setup.sentence:
                self.row = row
        if sentence == self.setup.sentence:
            await self.recompute()

    async def _redraw(self) -> None:
        """Draw the current result and row; a new query word is announced."""
        await self._draw_heads()
        self._draw_text()
        self.post_message(self.QueryChanged(self))

    async def _draw_heads(self) -> None:
        holder = self.query_one(".attention-heads", Vertical)
        result = self.result
        if result is None:
            await holder.remove_children()
            return
        count = result.heads
        views = list(holder.query(HeatmapView))
        if len(views) != count:
            await holder.remove_children()
            widgets: list[Static | HeatmapView] = []
            for head in range(count):
                if count > 1:
                    title = head_title(result, head)
                    widgets.append(Static(title, classes="head-title", markup=False))
                heatmap = HeatmapView(result.weights[head], result.tokens, self.row)
                heatmap.absolute = self.absolute
                widgets.append(heatmap)
            await holder.mount_all(widgets)
            return
        for head, view in enumerate(views):
            view.absolute = self.absolute
            view.show(result.weights[head], result.tokens, self.row)
        for head, title_widget in enumerate(holder.query(".head-title").results(Static)):
            title_widget.update(head_title(result, head))

    def _draw_text(self) -> None:
        controls = self.query_one(".attention-controls", ItemLine)
        extras = self.query_one(".attention-extras", Static)
        notes = self.query_one(".attention-notes", Static)
        summary = self.query_one(".attention-summary", Static)
        setup = self.setup
        vectors = setup.embeddings if self.result is None else self.result.embeddings_used
        if self.result is not None and self.result.fallback is not None:
            vectors = f"{self.result.embeddings_used} ({self.result.fallback})"
        switches = [
            f"s scale {'on' if setup.scale else 'off'}",
            f"c causal {'on' if setup.causal else 'off'}",
            f"m heads {setup.heads}",
            f"e vectors {vectors}",
            f"% shade {'0-100' if self.absolute else 'to max'}",
        ]
        if self.result is None:
            controls.show(switches, tail=self.problem or "")
            extras.update("")
            notes.update("")
            summary.update("")
            return
        controls.show([f"query '{self.query_word}' (up/down, click)", *switches])
        ascii_only = not locale_is_utf8()
        extras.update(
            Text("\n".join(attention_extras(self.result, self.row, self.extras, ascii_only)))
        )
        summary.update(Text(attention_summary(self.result)))
        notes.update(Text("\n".join(self.result.notes)))

    # actions

    async def action_move(self, step: int) -> None:
        if self.result is None:
            return
        self.row = (self.row + step) % len(self.result.tokens)
        await self._redraw()

    async def action_toggle_scale(self) -> None:
        self.setup = replace(self.setup, scale=not self.setup.scale)
        await self.recompute()

    async def action_toggle_causal(self) -> None:
        self.setup = replace(self.setup, causal=not self.setup.causal)
        await self.recompute()

    async def action_cycle_heads(self) -> None:
        self.setup = replace(self.setup, heads=specs.ATTENTION_HEADS.step(self.setup.heads, 1))
        await self.recompute()

    async def action_toggle_absolute(self) -> None:
        self.absolute = not self.absolute
        await self._redraw()

    async def action_cycle_embeddings(self) -> None:
        order = [name for name in EMBEDDING_ORDER if name in SETS]
        current = order.index(self.setup.embeddings) if self.setup.embeddings in order else -1
        chosen = order[(current + 1) % len(order)]
        sentence = self.setup.sentence
        if not self.editable and chosen != "hashed":
            sentence = SETS[chosen].default_sentence  # a lesson figure shows the set's own words
        self.setup = replace(self.setup, embeddings=chosen, sentence=sentence)
        await self.recompute()

    @on(HeatmapView.RowClicked)
    async def _row_clicked(self, event: HeatmapView.RowClicked) -> None:
        self.row = event.row
        self.focus()
        await self._redraw()

    @on(Input.Changed, ".sentence")
    async def _sentence_changed(self, event: Input.Changed) -> None:
        self.setup = replace(self.setup, sentence=event.value)
        await self.recompute()
