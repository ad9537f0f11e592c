"""One call from "a sentence and some switches" to attention weights, for the live views.

Kept here rather than in a widget so the lessons, the labs and the command
line all compute the same numbers the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_course.maths.attention import (
    Array,
    causal_mask,
    multi_head_attention,
    scaled_dot_product_attention,
)
from tui_course.maths.embeddings import SETS, embed, tokenize

MAX_TOKENS = 64
HEAD_CHOICES = (1, 2, 4)


@dataclass(frozen=True)
class AttentionSetup:
    sentence: str
    embeddings: str = "toy-train"
    scale: bool = True
    causal: bool = False
    heads: int = 1
    seed: int = 0


@dataclass(frozen=True)
class AttentionResult:
    setup: AttentionSetup
    tokens: tuple[str, ...]
    embeddings_used: str
    notes: tuple[str, ...]  # plain statements about where the numbers come from
    vectors: Array  # (tokens, d)
    weights: Array  # (heads, tokens, tokens)
    outputs: Array  # (tokens, d)

    @property
    def d(self) -> int:
        return int(self.vectors.shape[1])

    def strongest(self, row: int, head: int = 0) -> int:
        return int(np.argmax(self.weights[head, row]))


class NoWordsError(ValueError):
    pass


def explore_attention(setup: AttentionSetup) -> AttentionResult:
    """Tokenise, embed (falling back to hashed vectors for unknown words), attend."""
    tokens = tokenize(setup.sentence)
    if not tokens:
        raise NoWordsError("type at least one word")
    notes: list[str] = []
    if len(tokens) > MAX_TOKENS:
        notes.append(f"only the first {MAX_TOKENS} of {len(tokens)} words are used")
        tokens = tokens[:MAX_TOKENS]
    used = setup.embeddings
    known = SETS[used].vectors
    if used != "hashed":
        unknown = [t for t in tokens if t.casefold() not in known]
        if unknown:
            notes.append(
                f"'{unknown[0]}' is not in {used}, so all words use hashed vectors instead"
            )
            used = "hashed"
    notes.insert(0, f"vectors: {used}, {SETS[used].description}")
    vectors = embed(used, tokens)
    mask = causal_mask(len(tokens)) if setup.causal else None
    if setup.heads == 1:
        outputs, weights = scaled_dot_product_attention(
            vectors, vectors, vectors, mask, setup.scale
        )
        weights = weights[None, :, :]
        notes.append("one head with Q = K = V = the vectors themselves")
    else:
        rng = np.random.default_rng(setup.seed)
        outputs, weights = multi_head_attention(vectors, setup.heads, rng, mask, setup.scale)
        notes.append(
            f"{setup.heads} heads, each with its own random Wq, Wk, Wv "
            f"(seed {setup.seed}, not learned)"
        )
    return AttentionResult(setup, tuple(tokens), used, tuple(notes), vectors, weights, outputs)
