"""The attention explorer's state: the setup (sentence and switches) and the query row.

The numbers are computed once per setup, on first use (the draw), not per key: a held
key that only moves the query row recomputes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from tui_course import specs
from tui_course.maths.embeddings import SETS
from tui_course.maths.explore import (
    AttentionResult,
    AttentionSetup,
    NoWordsError,
    explore_attention,
)

EMBEDDING_ORDER = ("toy-train", "toy-cat-sat", "toy-it", "hashed")  # the order `e` cycles


@dataclass(frozen=True)
class AttentionExplorer:
    setup: AttentionSetup
    row: int = 0  # the query word, a row of every head's map
    editable: bool = False  # a sentence box: the sentence is the student's, kept across sets
    absolute: bool = False  # shade on 0-100 %, not up to the largest weight shown
    # A typed sentence no toy set knows: the real model's head for it and its query row,
    # or why the model cannot run (None: not asked yet). Made in the widget's worker.
    model: tuple[AttentionResult, int] | str | None = None

    @cached_property
    def _outcome(self) -> AttentionResult | str:
        try:
            return explore_attention(self.setup)
        except NoWordsError as error:
            return str(error)

    @property
    def toy_result(self) -> AttentionResult | None:
        """The toy maths (or hashed vectors) for the setup, whatever the model says."""
        outcome = self._outcome
        return None if isinstance(outcome, str) else outcome

    @property
    def result(self) -> AttentionResult | None:
        """What is drawn: the real model's head when it answered for this sentence."""
        result = self.toy_result
        if result is None or result.fallback is None:
            return result
        if isinstance(self.model, tuple):
            return replace(self.model[0], setup=self.setup)
        if isinstance(self.model, str):
            return replace(
                result, notes=(*result.notes, f"The real model is not shown: {self.model}")
            )
        return result

    @property
    def needs_model(self) -> bool:
        """A typed sentence no toy set knows, not yet put to the real model."""
        result = self.toy_result
        return (
            self.editable
            and self.model is None
            and result is not None
            and (result.fallback is not None)
        )

    @property
    def problem(self) -> str | None:
        outcome = self._outcome
        return outcome if isinstance(outcome, str) else None

    @property
    def query(self) -> int:
        """The query row, within the words this setup has."""
        result = self.result
        return 0 if result is None else min(self.row, len(result.tokens) - 1)

    @property
    def query_word(self) -> str | None:
        result = self.result
        return result.tokens[self.query] if result else None

    @property
    def strongest_word(self) -> str | None:
        result = self.result
        return None if result is None else result.tokens[result.strongest(self.query)]

    # changes

    def move(self, step: int) -> AttentionExplorer:
        result = self.result
        if result is None:
            return self
        return replace(self, row=(self.query + step) % len(result.tokens))

    def select_row(self, row: int) -> AttentionExplorer:
        return replace(self, row=row)

    def _with(self, setup: AttentionSetup) -> AttentionExplorer:
        """A new setup; the row stays where it was, and within the new words when drawn."""
        return replace(self, setup=setup, row=self.query)

    def toggle_scale(self) -> AttentionExplorer:
        return self._with(replace(self.setup, scale=not self.setup.scale))

    def toggle_causal(self) -> AttentionExplorer:
        return self._with(replace(self.setup, causal=not self.setup.causal))

    def cycle_heads(self) -> AttentionExplorer:
        return self._with(
            replace(self.setup, heads=specs.ATTENTION_HEADS.step(self.setup.heads, 1))
        )

    def cycle_embeddings(self) -> AttentionExplorer:
        order = [name for name in EMBEDDING_ORDER if name in SETS]
        current = order.index(self.setup.embeddings) if self.setup.embeddings in order else -1
        chosen = order[(current + 1) % len(order)]
        sentence = self.setup.sentence
        if not self.editable and chosen != "hashed":
            sentence = SETS[chosen].default_sentence  # a lesson figure shows the set's own words
        return self._with(replace(self.setup, embeddings=chosen, sentence=sentence))

    def with_sentence(self, sentence: str) -> AttentionExplorer:
        if sentence == self.setup.sentence:
            return self
        return replace(self._with(replace(self.setup, sentence=sentence)), model=None)

    def with_model(
        self, sentence: str, answer: tuple[AttentionResult, int] | str
    ) -> AttentionExplorer:
        """The real model's answer for `sentence`; ignored once another sentence is typed."""
        if sentence != self.setup.sentence:
            return self
        row = answer[1] if isinstance(answer, tuple) else self.row
        return replace(self, model=answer, row=row)

    def toggle_absolute(self) -> AttentionExplorer:
        return replace(self, absolute=not self.absolute)
