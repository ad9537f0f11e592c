"""The live attention figure: choose the query word, flip the switches, type a sentence.

A StateView of a views.attention.AttentionExplorer; each key is one change of it. A typed
sentence no toy set knows is put to the real model by the change that typed it (never by
a draw), and the model's answer comes back as one more change.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from tui_course import specs
from tui_course.content.blocks.attention import AttentionParams
from tui_course.maths.explore import AttentionResult, AttentionSetup
from tui_course.render.attention import controls
from tui_course.render.blocks import attention_extras, attention_summary, head_title
from tui_course.runtime.terminal import locale_is_utf8
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.item_line import ItemLine
from tui_course.ui.widgets.state_view import StateView
from tui_course.ui.widgets.text_box import TextBox
from tui_course.views.attention import EMBEDDING_ORDER as EMBEDDING_ORDER
from tui_course.views.attention import AttentionExplorer

TYPING_PAUSE = 0.3  # seconds without a key before a typed sentence goes to the real model
MOST_HEADS = max(specs.ATTENTION_HEADS.choices or (specs.ATTENTION_HEADS.high,))


class AttentionView(StateView[AttentionExplorer], Vertical, can_focus=True):
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
    # its section in the help (screens/help.py)
    HELP_TITLE = "Attention figure (in lessons and the attention lab)"
    HELP_RANK = 60
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

    def __init__(
        self,
        setup: AttentionSetup,
        row: int | None = 0,
        editable: bool = False,
        extras: AttentionParams | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        explorer = AttentionExplorer(setup, row if row is not None else 0, editable)
        super().__init__(explorer, name=name, id=id, classes=classes)
        self.editable = editable
        # What the block asks under the heatmap (the lab: the query's weights only).
        self.extras = extras or AttentionParams(setup.embeddings)
        # The parts, made once and held: a draw fills them in without looking them up.
        self._controls = ItemLine(classes="attention-controls")
        self._summary = Static(classes="attention-summary", markup=False)
        # Every head's map is made once and hidden when unused: `m` held down must not
        # mount and remove widgets at each press.
        self._heads = [
            (Static(classes="head-title", markup=False), HeatmapView(_no_weights(), [], None))
            for _ in range(MOST_HEADS)
        ]
        self._extras = Static(classes="attention-extras", markup=False)
        self._notes = Static(classes="attention-notes", markup=False)

    def compose(self) -> ComposeResult:
        if self.editable:
            yield TextBox(
                self.state.setup.sentence,
                placeholder="type a sentence",
                classes="sentence",
                max_length=specs.SENTENCE_CHARS,
            )
        yield self._controls
        yield self._summary
        with Vertical(classes="attention-heads"):
            for title, heatmap in self._heads:
                title.display = heatmap.display = False
                yield title
                yield heatmap
        yield self._extras
        yield self._notes

    def on_mount(self) -> None:
        if self.state.needs_model:  # a lesson's own sentence that no toy set knows
            self._ask_model(self.state)

    # what the tests and the app read

    @property
    def setup(self) -> AttentionSetup:
        return self.state.setup

    @property
    def result(self) -> AttentionResult | None:
        return self.state.result

    @property
    def row(self) -> int:
        return self.state.query

    @property
    def query_word(self) -> str | None:
        return self.state.query_word

    @property
    def strongest_word(self) -> str | None:
        return self.state.strongest_word

    # drawing

    def draw(self, old: AttentionExplorer | None, new: AttentionExplorer) -> None:
        """Text into the widgets made in compose, none mounted or removed; the numbers are
        computed here, for the newest state only (a held key draws once a turn)."""
        result, row = new.result, new.query
        items, tail = controls(new)
        self._controls.show(items, tail=tail)
        heads = 0 if result is None else result.heads
        for head, (title, heatmap) in enumerate(self._heads):
            shown = head < heads
            title.display = shown and heads > 1
            heatmap.display = shown
            if shown and result is not None:
                title.update(head_title(result, head))
                heatmap.absolute = new.absolute
                heatmap.show(result.weights[head], result.tokens, row)
        extras, notes, summary = self._extras, self._notes, self._summary
        if result is None:
            extras.update("")
            notes.update("")
            summary.update("")
            return
        ascii_only = not locale_is_utf8()
        extras.update(Text("\n".join(attention_extras(result, row, self.extras, ascii_only))))
        summary.update(Text(attention_summary(result)))
        notes.update(Text("\n".join(result.notes)))

    # actions: one state change each

    def action_move(self, step: int) -> None:
        self.state = self.state.move(step)

    def action_toggle_scale(self) -> None:
        self.state = self.state.toggle_scale()

    def action_toggle_causal(self) -> None:
        self.state = self.state.toggle_causal()

    def action_cycle_heads(self) -> None:
        self.state = self.state.cycle_heads()

    def action_cycle_embeddings(self) -> None:
        self._change(self.state.cycle_embeddings())

    def action_toggle_absolute(self) -> None:
        self.state = self.state.toggle_absolute()

    @on(HeatmapView.RowClicked)
    def _row_clicked(self, event: HeatmapView.RowClicked) -> None:
        event.stop()
        self.focus()
        self.state = self.state.select_row(event.row)

    @on(Input.Changed, ".sentence")
    def _sentence_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._change(self.state.with_sentence(event.value))

    def _change(self, new: AttentionExplorer) -> None:
        """A change that may bring a sentence no toy set knows: it goes to the real model
        (a new sentence asks again, and cancels the wait for the last one)."""
        old, self.state = self.state, new
        if new.needs_model and (not old.needs_model or new.setup.sentence != old.setup.sentence):
            self._ask_model(new)

    def _ask_model(self, explorer: AttentionExplorer) -> None:
        self.run_worker(
            self._model_answer(explorer.setup.sentence, explorer.query_word),
            group="typed-model",
            exclusive=True,
        )

    async def _model_answer(self, sentence: str, query: str | None) -> None:
        """The real model's head for a typed sentence no toy set knows, off the UI thread.
        Typing pauses first: each key cancels the wait (an exclusive worker), so a fast
        typist on a shared server starts one forward pass, not one per key."""
        import asyncio

        from tui_course.realmodel.attention import attention_of
        from tui_course.render.real_model import typed_sentence_result
        from tui_course.ui.widgets.real_model_view import model_cache_dir, run_real_model

        await asyncio.sleep(TYPING_PAUSE)
        outcome = await asyncio.to_thread(run_real_model, sentence, model_cache_dir(self))
        if isinstance(outcome, str):
            self.state = self.state.with_model(sentence, outcome)
            return
        attention = attention_of(outcome, merge=True)
        answer = typed_sentence_result(self.state.setup, attention, query)
        self.state = self.state.with_model(sentence, answer)


def _no_weights() -> Any:
    import numpy as np

    return np.zeros((0, 0))
