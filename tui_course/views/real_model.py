"""The real model's view states: the Real-model lab's, and a lesson's contrast figure's.

The lab's state holds the sentence, the model's answer for it, and the figure.

The forward pass runs off the UI thread, one at a time; the lab's state says which
sentence is the newest (`generation`), whether a pass is running, and whether the
figure shown is for the newest sentence (`loading`). A pass's outcome is taken in only
when it is for the newest sentence: typing during a pass never shows a stale figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from tui_course.maths.encoder import rank_heads
from tui_course.realmodel.attention import SPECIAL, ModelAttention, QueryError

if TYPE_CHECKING:
    from tui_course.realmodel.loading import RealAttention


@dataclass(frozen=True)
class LabState:
    """Everything the Real-model lab shows, changed only through its methods."""

    attention: ModelAttention | None = None
    notes: tuple[str, ...] = ()
    problem: str | None = None
    layer: int = 0
    head: int = 0
    query: int = 0
    link_to: int | None = None
    model_view: bool = False
    merge: bool = False
    links: tuple[str, ...] = field(default=())

    def with_attention(
        self, attention: ModelAttention, notes: Sequence[str], query_word: str | None = None
    ) -> LabState:
        """A new sentence: keep the head, pick a query word, choose a telling head if new."""
        query = min(self.query, len(attention.labels) - 1)
        if self.attention is None or attention.labels[query] in SPECIAL:
            query = attention.default_query()
        if query_word is not None:
            with suppress(QueryError):
                query = attention.find(query_word)
        layer, head = self.layer, self.head
        if self.attention is None:
            layer, head = attention.telling_head(query)
        return replace(
            self,
            attention=attention,
            notes=tuple(notes),
            problem=None,
            query=query,
            layer=layer,
            head=head,
            link_to=None,
            links=(),
        )

    def with_problem(self, problem: str) -> LabState:
        return replace(self, attention=None, problem=problem, links=(), link_to=None)

    def move_layer(self, step: int) -> LabState:
        if self.attention is None:
            return self
        return replace(self, layer=(self.layer + step) % self.attention.layers)

    def move_head(self, step: int) -> LabState:
        if self.attention is None:
            return self
        return replace(self, head=(self.head + step) % self.attention.heads)

    def move_query(self, step: int) -> LabState:
        if self.attention is None:
            return self
        return replace(self, query=(self.query + step) % len(self.attention.labels))

    def toggle_view(self) -> LabState:
        return replace(self, model_view=not self.model_view)

    def with_links(self, lines: Sequence[str]) -> LabState:
        return replace(self, links=tuple(lines), link_to=None)

    def link(self, first: str, second: str) -> LabState:
        """Answer "which heads link A to B?"; a word not in the sentence is a problem line."""
        if self.attention is None:
            return self
        try:
            query = self.attention.find(first, "from")
            key = self.attention.find(second, "to")
        except QueryError as error:
            return replace(self, links=(str(error),), link_to=None)
        layer, head, _ = rank_heads(self.attention.weights, query, key)[0]
        lines = linking_lines(self.attention, query, key)
        return replace(self, query=query, link_to=key, layer=layer, head=head, links=tuple(lines))


def linking_lines(attention: ModelAttention, query: int, key: int, limit: int = 5) -> list[str]:
    """The heads that link `query` to `key` most strongly (the lab's "which heads?")."""
    ranked = rank_heads(attention.weights, query, key)[:limit]
    labels = attention.labels
    lines = [f"heads that link '{labels[query]}' to '{labels[key]}' most:"]
    for layer, head, weight in ranked:
        strongest = int(np.argmax(attention.weights[layer, head, query]))
        note = "" if strongest == key else f" (its strongest is '{labels[strongest]}')"
        lines.append(f"  layer {layer + 1} head {head + 1}: {weight:.2f}{note}")
    return lines


@dataclass(frozen=True, eq=False)
class RealModelLab:
    sentence: str
    start_query: str | None  # the first figure's query word, when the sentence has it
    figure: LabState
    # the model's weights as the figure shows them (pieces or whole words)
    attention_of: Callable[[RealAttention, bool], ModelAttention]
    result: RealAttention | None = None
    loading: bool = True  # the figure is not yet for `sentence`
    generation: int = 0  # bumped by every new sentence
    running: bool = False  # a forward pass is running in its thread

    @property
    def query_word(self) -> str | None:
        attention = self.figure.attention
        return attention.labels[self.figure.query] if attention else None

    # the forward pass

    def typed(self, sentence: str) -> RealModelLab:
        """A new sentence to read: the running pass (or a new one) picks it up."""
        return replace(self, sentence=sentence, generation=self.generation + 1, loading=True)

    def started(self) -> RealModelLab:
        return replace(self, running=True)

    def stopped(self) -> RealModelLab:
        """The pass's worker ended (its outcome taken in, cancelled, or failed)."""
        return replace(self, running=False) if self.running else self

    def computed(self, generation: int, outcome: RealAttention | str) -> RealModelLab:
        """A pass's outcome (the model's answer or a one-line problem) for `generation`.

        For an older sentence only the pass ends: the next one starts on the newest.
        """
        if generation != self.generation:
            return replace(self, running=False)
        if isinstance(outcome, str):
            figure = self.figure.with_problem(outcome)
            return replace(self, figure=figure, result=None, loading=False, running=False)
        first = self.start_query if self.figure.attention is None else None
        attention = self.attention_of(outcome, self.figure.merge)
        figure = self.figure.with_attention(attention, outcome.notes, first)
        return replace(self, figure=figure, result=outcome, loading=False, running=False)

    # moving in the figure

    def _with(self, figure: LabState) -> RealModelLab:
        return self if figure is self.figure else replace(self, figure=figure)

    def move_query(self, step: int) -> RealModelLab:
        return self._with(self.figure.move_query(step))

    def move_head(self, step: int) -> RealModelLab:
        return self._with(self.figure.move_head(step))

    def move_layer(self, step: int) -> RealModelLab:
        return self._with(self.figure.move_layer(step))

    def select_row(self, row: int) -> RealModelLab:
        if self.figure.attention is None:
            return self
        return self.move_query(row - self.figure.query)

    def toggle_view(self) -> RealModelLab:
        return self._with(self.figure.toggle_view())

    def toggle_merge(self) -> RealModelLab:
        """Pieces <-> words, keeping the query on the same typed word (its first piece)."""
        merged = replace(self.figure, merge=not self.figure.merge)
        if self.result is None or self.figure.attention is None:
            return self._with(merged)
        word_of_piece = self.result.tokens.word_of_piece
        if merged.merge:
            query = word_of_piece[self.figure.query]
        else:
            query = word_of_piece.index(self.figure.query)
        figure = merged.with_attention(self.attention_of(self.result, merged.merge), merged.notes)
        return self._with(replace(figure, query=query))

    def ask_link(self, question: str) -> RealModelLab:
        """ "which heads link A to B?": two words (or "A to B") of the sentence."""
        words = question.split()
        if len(words) == 3 and words[1].casefold() == "to":
            words = [words[0], words[2]]
        if len(words) != 2:
            return self._with(
                self.figure.with_links(("type two words of the sentence, e.g. it animal",))
            )
        return self._with(self.figure.link(words[0], words[1]))


@dataclass(frozen=True, eq=False)
class RealFigure:
    """A lesson's real-attention figure: the model's weights for the block's sentence (and
    its second sentence, if any), or why the model cannot run. The toy half is the block's
    own and needs no state."""

    loading: bool = True  # the forward passes have not answered yet
    real: ModelAttention | None = None
    compare: ModelAttention | None = None  # the block's second sentence, if it has one
    problem: str | None = None

    def computed(self, real: ModelAttention, compare: ModelAttention | None) -> RealFigure:
        return replace(self, loading=False, real=real, compare=compare, problem=None)

    def failed(self, problem: str) -> RealFigure:
        return replace(self, loading=False, real=None, compare=None, problem=problem)
