"""Word vectors for the lessons' examples, and a stated-plainly fallback for free text.

The toy sets are small hand-made tables: their numbers are chosen so that the
relations the lessons talk about really show up in the attention scores.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from dataclasses import dataclass

import numpy as np

from tui_course.maths.attention import Array


@dataclass(frozen=True)
class EmbeddingSet:
    name: str
    description: str
    default_sentence: str
    vectors: dict[str, tuple[float, ...]]


SETS: dict[str, EmbeddingSet] = {
    "toy-cat-sat": EmbeddingSet(
        "toy-cat-sat",
        "hand-made 3-d vectors for 'the cat sat down' (lesson 3)",
        "the cat sat down",
        {
            "the": (1.0, 0.0, 0.2),
            "cat": (0.9, 0.1, 0.1),
            "sat": (0.1, 0.9, 0.0),
            "down": (0.0, 0.8, 0.3),
        },
    ),
    "toy-it": EmbeddingSet(
        "toy-it",
        "hand-made 4-d vectors for 'the cat sat it' (lesson 4)",
        "the cat sat it",
        {
            "the": (0.1, 0.0, 0.1, 0.0),
            "cat": (0.9, 0.8, 0.0, 0.1),
            "sat": (0.0, 0.1, 0.9, 0.7),
            "it": (0.8, 0.9, 0.1, 0.0),
        },
    ),
    "toy-train": EmbeddingSet(
        "toy-train",
        "hand-made 5-d vectors (transport, place, motion, time, grammar word)",
        "The train left the station on time",
        {
            "the": (0.2, 0.2, 0.0, 0.0, 1.8),
            "train": (1.8, 0.8, 1.0, 0.2, 0.0),
            "left": (0.6, 0.2, 1.8, 0.4, 0.2),
            "station": (1.6, 1.8, 0.2, 0.2, 0.0),
            "on": (0.0, 0.4, 0.2, 1.4, 1.2),
            "time": (0.2, 0.0, 0.4, 1.8, 0.2),
        },
    ),
    "hashed": EmbeddingSet(
        "hashed",
        "16-d vectors hashed from each word's letter trigrams: deterministic, not learned",
        "The train left the station on time",
        {},
    ),
}

HASHED_DIM = 16
# pictographs (U+2600-27BF, 2B00-2BFF, 1F000-1FAFF), with the joiners, variation selectors
# and skin tones that make one emoji out of several code points
_PICTOGRAPH = "\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_EMOJI_TAIL = "\u200d\ufe0f\U0001f3fb-\U0001f3ff"
_JOINERS = "\u200c\u200d"  # zero-width non-joiner and joiner: inside a word, part of it
_WORD = re.compile(rf"[^\W_]+(?:'[^\W_]+)?|[{_PICTOGRAPH}][{_PICTOGRAPH}{_EMOJI_TAIL}]*")


def tokenize(sentence: str) -> list[str]:
    """Words as the heatmap labels them: letters and digits, and emoji (a typed emoji is
    a word the student meant, not punctuation); punctuation dropped.

    Combining marks stay in their word: a regex word character excludes them, which cut
    Hindi 'नमस्ते' into 'नमस', 'त' and dropped the accent of a decomposed 'café' (as some
    keyboards type it), so the same word got other vectors. NFC first, then marks glue,
    and so does a zero-width (non-)joiner between letters, as inside Persian words.
    """
    text = unicodedata.normalize("NFC", sentence)
    words: list[str] = []
    glued_at = -1  # where a word ended in combining marks or a joiner: the next part is its
    for match in _WORD.finditer(text):
        start, end = match.span()
        while end < len(text) and unicodedata.category(text[end]).startswith("M"):
            end += 1
        word = text[start:end]
        if words and start == glued_at and word[0].isalnum() and words[-1][0].isalnum():
            words[-1] += word
        else:
            words.append(word)
        glued_at = end if end > match.end() else -1
        joined = text[end : end + 2]
        if len(joined) == 2 and joined[0] in _JOINERS and joined[1].isalnum() and word[0].isalnum():
            words[-1] += joined[0]
            glued_at = end + 1
    return words


def hashed_vector(word: str, dim: int = HASHED_DIM) -> Array:
    """Sum of signed one-hot buckets for the word's character trigrams, unit length.

    Words sharing spelling share trigrams and so score higher; nothing is learned.
    """
    padded = f"<{word.casefold()}>"
    vector = np.zeros(dim)
    for start in range(max(1, len(padded) - 2)):
        digest = zlib.crc32(padded[start : start + 3].encode("utf-8"))
        vector[digest % dim] += 1.0 if digest & 0x10000 else -1.0
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


class UnknownWordError(ValueError):
    pass


def embed(set_name: str, tokens: list[str]) -> Array:
    """One row per token; toy sets only know their own words."""
    embedding_set = SETS[set_name]
    if set_name == "hashed":
        return np.array([hashed_vector(token) for token in tokens]).reshape(len(tokens), HASHED_DIM)
    rows = []
    for token in tokens:
        key = token.casefold()
        if key not in embedding_set.vectors:
            known = ", ".join(embedding_set.vectors)
            raise UnknownWordError(f"'{token}' is not in {set_name} (its words: {known})")
        rows.append(embedding_set.vectors[key])
    return np.array(rows, dtype=np.float64)
