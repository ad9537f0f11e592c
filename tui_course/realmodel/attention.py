"""The model's attention as every figure and lab takes it: labels (word pieces or whole
words) and weights[layer, head, query, key], with the questions asked of it (which word,
which head tells most). Made from a forward pass's RealAttention by `attention_of`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from tui_course.content.text import strip_control
from tui_course.maths.encoder import merge_pieces

if TYPE_CHECKING:
    from tui_course.realmodel.loading import RealAttention

SPECIAL = ("[CLS]", "[SEP]", "[PAD]")


class QueryError(ValueError):
    """A word the sentence does not have; the message lists the ones it does."""


@dataclass(frozen=True)
class ModelAttention:
    """What the views draw: labels (pieces or words) and weights[layer, head, query, key]."""

    labels: tuple[str, ...]
    weights: NDArray[np.float32]
    merged: bool = False
    # Unmerged only: the typed word of each piece, so a query may name a word the tokenizer split.
    piece_words: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        pieces: Sequence[str],
        words: Sequence[str],
        word_of_piece: Sequence[int],
        attentions: NDArray[np.float32],
        merge: bool,
    ) -> ModelAttention:
        if not merge:
            typed = tuple(words[index] for index in word_of_piece)
            return cls(tuple(pieces), attentions, False, typed)
        return cls(tuple(words), merge_pieces(attentions, list(word_of_piece)), True)

    @property
    def layers(self) -> int:
        return int(self.weights.shape[0])

    @property
    def heads(self) -> int:
        return int(self.weights.shape[1])

    def find(self, word: str, flag: str = "--query") -> int:
        """The first label equal to `word` (ignoring case); else QueryError naming the flag."""
        wanted = word.casefold().strip()
        for index, label in enumerate(self.labels):
            if label.casefold() == wanted:
                return index
        for index, typed in enumerate(self.piece_words):  # its first piece
            if typed.casefold() == wanted:
                return index
        shown = ", ".join(dict.fromkeys(self.labels))
        if len(shown) > 300:
            shown = shown[:300] + "..."
        kind = "word" if self.merged else "word piece"
        shown_word = strip_control(word).replace("\n", " ")
        raise QueryError(
            f"{flag}: '{shown_word}' is not a {kind} of the sentence (they are: {shown})"
        )

    def default_query(self) -> int:
        """The first token that is not [CLS] (a plain word is a better start than a marker)."""
        return next((i for i, label in enumerate(self.labels) if label not in SPECIAL), 0)

    def others(self, query: int) -> list[int]:
        """Keys worth naming for a query: not itself and not [CLS]/[SEP], which soak up weight
        in many heads without telling much."""
        return [i for i, label in enumerate(self.labels) if i != query and label not in SPECIAL]

    def telling_head(
        self, query: int, layer: int | None = None, head: int | None = None
    ) -> tuple[int, int]:
        """The head (among those allowed) giving `query` its strongest link to a word that is
        not its neighbour: many heads only look one word back or ahead, which shows little."""
        keys = [key for key in self.others(query) if abs(key - query) > 1]
        keys = keys or self.others(query) or list(range(len(self.labels)))
        rows = self.weights[:, :, query, :][:, :, keys].max(axis=-1)
        allowed = np.full(rows.shape, -1.0)
        layers = range(self.layers) if layer is None else [layer]
        heads = range(self.heads) if head is None else [head]
        for chosen_layer in layers:
            for chosen_head in heads:
                allowed[chosen_layer, chosen_head] = rows[chosen_layer, chosen_head]
        best_layer, best_head = divmod(int(np.argmax(allowed)), self.heads)
        return best_layer, best_head


def attention_of(result: RealAttention, merge: bool) -> ModelAttention:
    """The model's weights for the lab's figure: per word piece, or merged per word."""
    tokens = result.tokens
    return ModelAttention.of(
        tokens.pieces, tokens.words, tokens.word_of_piece, result.attentions, merge
    )
