"""One call from "a sentence and some switches" to attention weights, for the live views.

Kept here rather than in a widget so the lessons, the labs and the command
line all compute the same numbers the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tui_course import specs
from tui_course.maths.attention import (
    Array,
    HeadProjections,
    attention_loop,
    causal_mask,
    projected_attention,
    projected_attention_loop,
    random_projections,
    scaled_dot_product_attention,
)
from tui_course.maths.embeddings import SETS, embed, tokenize

MAX_TOKENS = specs.SENTENCE_WORDS.high
HEAD_CHOICES = specs.ATTENTION_HEADS.choices


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
    projections: HeadProjections | None = None  # None: one head, Q = K = V = the vectors
    fallback: str | None = None  # why the chosen set was replaced by hashed vectors
    model: str | None = None  # a pretrained model's head, named: its weights, not toy maths

    @property
    def d(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def heads(self) -> int:
        return int(self.weights.shape[0])

    @property
    def head_dim(self) -> int:
        """Numbers per head: the size the scores are divided by the square root of."""
        return self.d if self.projections is None else self.projections.key_dim

    @property
    def mask(self) -> NDArray[np.bool_] | None:
        return causal_mask(len(self.tokens)) if self.setup.causal else None

    def loop_version(self) -> tuple[Array, Array]:
        """(outputs, weights) recomputed one head, one query, one key at a time."""
        if self.projections is None:
            vectors = self.vectors
            outputs, weights = attention_loop(
                vectors, vectors, vectors, self.setup.scale, self.mask
            )
            return outputs, weights[None, :, :]
        return projected_attention_loop(self.vectors, self.projections, self.mask, self.setup.scale)

    def strongest(self, row: int, head: int = 0) -> int:
        return int(np.argmax(self.weights[head, row]))


class NoWordsError(ValueError):
    pass


TOY_SETS = tuple(name for name in SETS if name != "hashed")
HASHED_MEANING = (
    "hashed vectors come from each word's spelling (letter trigrams), not its meaning:"
    " words spelled alike attend to each other, nothing more"
)


def unknown_words(tokens: list[str], set_name: str) -> list[str]:
    known = SETS[set_name].vectors
    return [token for token in tokens if token.casefold() not in known]


def pick_embeddings(tokens: list[str], preferred: str) -> tuple[str, str | None, str | None]:
    """(set used, why hashed vectors replaced the preferred set, why another toy set did).

    The preferred set when it knows every word; else the first toy set that does (lesson
    3's "the cat sat down" typed where toy-train was chosen); else hashed vectors.
    """
    if preferred == "hashed" or not unknown_words(tokens, preferred):
        return preferred, None, None
    missing = f"'{unknown_words(tokens, preferred)[0]}' is not in {preferred}"
    for name in TOY_SETS:
        if not unknown_words(tokens, name):
            return name, None, f"{missing}; {name} knows every word, so it is used"
    return "hashed", missing, None


def toy_words_line() -> str:
    """What each toy set knows, in one line a student can read next to the figure."""
    return "toy sets know: " + "; ".join(
        f"{name}: {', '.join(SETS[name].vectors)}" for name in TOY_SETS
    )


def explore_attention(setup: AttentionSetup) -> AttentionResult:
    """Tokenise, embed (falling back to hashed vectors for unknown words), attend."""
    tokens = tokenize(setup.sentence)
    if not tokens:
        raise NoWordsError("type at least one word")
    notes: list[str] = []
    if len(tokens) > MAX_TOKENS:
        notes.append(f"only the first {MAX_TOKENS} of {len(tokens)} words are used")
        tokens = tokens[:MAX_TOKENS]
    used, fallback, switched = pick_embeddings(tokens, setup.embeddings)
    if switched is not None:
        notes.append(switched)
    if fallback is not None:
        notes.append(f"{fallback}, and no toy set knows every word: hashed vectors instead")
        notes.append(HASHED_MEANING)
        notes.append(toy_words_line())
    notes.insert(0, f"vectors: {used}, {SETS[used].description}")
    if used != "hashed":
        notes.insert(1, f"{used} knows: {', '.join(SETS[used].vectors)}")
    vectors = embed(used, tokens)
    mask = causal_mask(len(tokens)) if setup.causal else None
    projections = None
    if setup.heads == 1:
        outputs, weights = scaled_dot_product_attention(
            vectors, vectors, vectors, mask, setup.scale
        )
        weights = weights[None, :, :]
        notes.append("one head with Q = K = V = the vectors themselves")
    else:
        rng = np.random.default_rng(setup.seed)
        projections = random_projections(vectors.shape[1], setup.heads, rng)
        outputs, weights = projected_attention(vectors, projections, mask, setup.scale)
        notes.append(
            f"{setup.heads} heads, each with its own random Wq, Wk, Wv "
            f"(seed {setup.seed}, not learned); Wo joins them back to d"
        )
    return AttentionResult(
        setup,
        tuple(tokens),
        used,
        tuple(notes),
        vectors,
        weights,
        outputs,
        projections,
        fallback,
    )
