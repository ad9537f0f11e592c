"""A pretrained model's attention as text: one head, all heads, and the heads that link two words.

Shared by `attn-tui attention --model` and the Real-model lab, so both show the
same characters. Layers and heads are numbered from 1 on screen and from 0 in
the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from tui_course.maths.encoder import (
    preference_flips,
    preference_shifts,
    strongest_links,
)
from tui_course.maths.explore import AttentionResult, AttentionSetup, toy_words_line
from tui_course.realmodel.attention import QueryError
from tui_course.render.heatmap import RAMP, Piece, heatmap_cells, shade, weight_bars, window

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.measure import Measurement

    from tui_course.realmodel.attention import ModelAttention
    from tui_course.views.real_model import LabState

THUMBNAIL_TOKENS = 24  # a model-view map shows at most this many tokens (windowed on the query)


def head_cells(
    attention: ModelAttention,
    layer: int,
    head: int,
    query: int | None,
    max_rows: int | None = None,
    width: int | None = None,
) -> list[list[Piece]]:
    cells = heatmap_cells(
        attention.weights[layer, head],
        attention.labels,
        attention.labels,
        query,
        max_rows=max_rows,
        width=width,
    )
    return [[(f"layer {layer + 1}, head {head + 1}", "label")], *cells]


def query_bars(attention: ModelAttention, layer: int, head: int, query: int, ascii: bool) -> str:
    row = attention.weights[layer, head, query]
    return f"'{attention.labels[query]}' looks at:\n" + weight_bars(
        row, attention.labels, limit=6, ascii_only=ascii
    )


def model_view_lines(
    attention: ModelAttention,
    query: int | None,
    width: int,
    max_tokens: int = THUMBNAIL_TOKENS,
    layers: Sequence[int] | None = None,
) -> list[str]:
    """Every head as a small map, one character per weight, a layer per band.

    Each map is shaded on its own scale (its largest weight is '@'); the query's
    row is marked with '>' in the left margin of each band.
    """
    shown = window(len(attention.labels), max_tokens, query)
    size = len(shown)
    per_line = max(1, (width - 2) // (size + 2))
    lines: list[str] = []
    if size < len(attention.labels):
        lines.append(f"tokens {shown.start + 1}-{shown.stop} of {len(attention.labels)} shown")
    if query is not None:
        lines.append(f"the row of '{attention.labels[query]}' is marked with '>' on the left")
    for layer in range(attention.layers) if layers is None else layers:
        for first in range(0, attention.heads, per_line):
            heads = range(first, min(first + per_line, attention.heads))
            titles = "".join(
                (f"L{layer + 1}H{head + 1}" if size >= 5 else f"H{head + 1}")[: size + 1].ljust(
                    size + 2
                )
                for head in heads
            )
            lines.append(("  " + titles).rstrip())
            for row in shown:
                margin = "> " if row == query else "  "
                maps = []
                for head in heads:
                    matrix = attention.weights[layer, head]
                    top = float(matrix[shown.start : shown.stop, shown.start : shown.stop].max())
                    maps.append(
                        "".join(shade(float(matrix[row, key]), top) for key in shown).ljust(
                            size + 2
                        )
                    )
                lines.append((margin + "".join(maps)).rstrip())
        lines.append("")
    lines.append(f"shade ' ' = 0 ... '{RAMP[-1]}' = the largest weight of that head")
    return lines


def top_lines(attention: ModelAttention, query: int) -> list[str]:
    """For each other word, the head giving the query its strongest link to it."""
    links = strongest_links(attention.weights, query)
    name_width = min(max(len(label) for label in attention.labels), 12)
    lines = [
        f"strongest link from '{attention.labels[query]}' to each word"
        f" (over {attention.layers * attention.heads} heads):"
    ]
    for key, layer, head, weight in links:
        if key == query:
            continue
        label = attention.labels[key][:name_width].ljust(name_width)
        bar = "#" * round(weight * 20)
        lines.append(
            f"  {label}  layer {layer + 1:>2} head {head + 1:>2}  {weight:.2f} {bar}".rstrip()
        )
    return lines


def contrast_lines(
    toy_tokens: Sequence[str],
    toy_weights: NDArray[np.float64],
    toy_name: str,
    real: ModelAttention | None,
    query_word: str,
    layer: int | None = None,
    head: int | None = None,
    model_name: str = "all-MiniLM-L6-v2",
    ascii: bool = True,
) -> list[str]:
    """The query's weights from the toy vectors, then from the real model on the same sentence.

    `toy_weights` is the query's row. Without `real`, only the toy half is drawn.
    """
    toy_row = [t.casefold() for t in toy_tokens].index(query_word.casefold())
    lines = [
        f"'{toy_tokens[toy_row]}' with toy vectors ({toy_name}):",
        weight_bars(toy_weights, toy_tokens, limit=5, ascii_only=ascii),
    ]
    if real is None:
        return lines
    query = real.find(query_word, "query")
    chosen_layer, chosen_head = real.telling_head(query, layer, head)
    lines += [
        "",
        f"'{real.labels[query]}' in {model_name}, layer {chosen_layer + 1} head {chosen_head + 1}",
    ]
    if layer is None or head is None:
        lines += [
            f"(one of its {real.layers * real.heads} heads: the one with",
            "its strongest link past its neighbours)",
        ]
    lines[-1] += ":"
    row = real.weights[chosen_layer, chosen_head, query]
    lines.append(weight_bars(row, real.labels, limit=5, ascii_only=ascii))
    if layer is None or head is None:
        far = [key for key in real.others(query) if abs(key - query) > 1] or real.others(query)
        if far:
            key = max(far, key=lambda index: float(row[index]))
            strong = int((real.weights[:, :, query, key] > LINK_WEIGHT).sum())
            lines += [
                f"'{real.labels[query]}' gives '{real.labels[key]}' more than {LINK_WEIGHT}",
                f"in {strong} of the {real.layers * real.heads} heads",
            ]
    return lines


LINK_WEIGHT = 0.2  # a weight this large on one word is a link worth naming


FLIP_LIMIT = 0.1  # a head's preference moves, or changes sides, when by more than this


def sentence_tail(sentence: str) -> str:
    """'...too tired.': enough of a sentence to tell it from its twin."""
    return "..." + " ".join(sentence.split()[-2:])


def pair_lines(
    first: ModelAttention,
    second: ModelAttention,
    sentences: tuple[str, str],
    query_word: str,
    between: tuple[str, str],
    layer: int | None = None,
    head: int | None = None,
    model_name: str = "all-MiniLM-L6-v2",
) -> list[str]:
    """One head's weights for the query in two sentences side by side, then whether any head
    of the model switches between the two words (`between`) from one sentence to the other."""
    query = (first.find(query_word, "query"), second.find(query_word, "query"))
    one = (first.find(between[0], "between"), second.find(between[0], "between"))
    other = (first.find(between[1], "between"), second.find(between[1], "between"))
    chosen_layer, chosen_head = first.telling_head(query[0], layer, head)
    rows = (
        first.weights[chosen_layer, chosen_head, query[0]],
        second.weights[chosen_layer, chosen_head, query[1]],
    )
    tails = tuple(sentence_tail(sentence) for sentence in sentences)
    name_width = max(len(between[0]), len(between[1]), 6)
    column = max(len(tail) for tail in tails) + 2
    lines = [
        f"'{first.labels[query[0]]}' in {model_name},",
        f"layer {chosen_layer + 1} head {chosen_head + 1}, in both sentences:",
        " " * (name_width + 2) + "".join(tail.rjust(column) for tail in tails),
    ]
    for word, indexes in zip(between, (one, other), strict=True):
        cells = "".join(f"{float(rows[n][indexes[n]]):.2f}".rjust(column) for n in (0, 1))
        lines.append(f"  {word.ljust(name_width)}{cells}")
    preferred = [
        between[0] if row[one[n]] >= row[other[n]] else between[1] for n, row in enumerate(rows)
    ]
    if preferred[0] == preferred[1]:
        lines.append(f"This head prefers '{preferred[0]}' in both.")
    else:
        lines.append(f"This head prefers '{preferred[0]}', then '{preferred[1]}'.")
    total = first.layers * first.heads
    lines += [
        f"A head's preference: its weight on '{between[0]}'",
        f"minus its weight on '{between[1]}'. Over all {total} heads:",
    ]
    shifts = preference_shifts(first.weights, second.weights, query, one, other)
    for word, moves in ((between[1], -shifts), (between[0], shifts)):
        count = int((moves > FLIP_LIMIT).sum())
        heads = "head moves" if count == 1 else "heads move"
        if not count:
            lines.append(f"no head moves it towards '{word}' by more than {FLIP_LIMIT};")
            continue
        most_layer, most_head = divmod(int(np.argmax(moves)), first.heads)
        start = float(
            first.weights[most_layer, most_head, query[0], one[0]]
            - first.weights[most_layer, most_head, query[0], other[0]]
        )
        end = start + float(shifts[most_layer, most_head])
        lines += [
            f"{count} {heads} it towards '{word}' by more than {FLIP_LIMIT}",
            f"(the most: layer {most_layer + 1} head {most_head + 1}, {start:.2f} to {end:.2f});",
        ]
    flips = preference_flips(first.weights, second.weights, query, one, other)
    sides = int((flips > FLIP_LIMIT).sum())
    largest = float(flips.max())
    if sides:
        change = "head changes" if sides == 1 else "heads change"
        lines.append(f"{sides} {change} sides by more than {FLIP_LIMIT}")
    else:
        lines.append(f"no head changes sides by more than {FLIP_LIMIT}")
    if largest > 0:
        flip_layer, flip_head = divmod(int(np.argmax(flips)), first.heads)
        lines.append(f"(the most: {largest:.2f}, layer {flip_layer + 1} head {flip_head + 1}).")
    else:
        lines[-1] += " (none changes at all)."
    return lines


def typed_sentence_result(
    setup: AttentionSetup,
    attention: ModelAttention,
    query_word: str | None,
    model_name: str = "all-MiniLM-L6-v2",
) -> tuple[AttentionResult, int]:
    """A sentence no toy set knows, as the pretrained model's head for it: the head a
    `real-attention` block would choose (the query's strongest link past its neighbours).
    Returns the result for the attention views and the query's row."""
    query = attention.default_query()
    if query_word is not None:
        with suppress(QueryError):
            query = attention.find(query_word)
    layer, head = attention.telling_head(query)
    total = attention.layers * attention.heads
    size = len(attention.labels)
    notes = (
        f"no toy set knows every word, so this is {model_name}, a trained model",
        f"layer {layer + 1} head {head + 1}, one of its {total} heads: the one giving"
        f" '{attention.labels[query]}' its strongest link past its neighbours",
        "s, c, m change the toy maths only: a trained head is shown as it is",
        toy_words_line(),
    )
    result = AttentionResult(
        setup=setup,
        tokens=attention.labels,
        embeddings_used=model_name,
        notes=notes,
        vectors=np.zeros((size, 0)),
        weights=attention.weights[layer, head][None, :, :].astype(np.float64),
        outputs=np.zeros((size, 0)),
        model=f"{model_name} (trained), layer {layer + 1} head {head + 1} of {total}",
    )
    return result, query


EMPTY_SENTENCE = "Type a sentence in the box above: the model reads it as you type."
MODEL_VIEW_COLUMNS = 40  # the fewest columns the grid of maps is laid out for (it scrolls)


def lab_status(figure: LabState, loading: bool) -> str:
    """The Real-model lab's first line: where in the model, which query, which tokens."""
    attention = figure.attention
    if attention is None:
        return "loading the model..." if loading else "no sentence yet"
    query = attention.labels[figure.query]
    layers, heads = attention.layers, attention.heads
    where = f"layer {figure.layer + 1}/{layers}, head {figure.head + 1}/{heads}"
    view = f"all {layers}x{heads} heads" if figure.model_view else where
    tokens = "words" if attention.merged else "word pieces"
    busy = " (computing...)" if loading else ""
    return f"{view}, query '{query}', {tokens}{busy}"


def lab_notes(figure: LabState, sentence: str) -> str:
    if figure.attention is not None:
        return "\n".join(figure.notes)
    if not sentence.strip():  # nothing to read is not a model that cannot run
        return EMPTY_SENTENCE
    return f"The real model cannot run here: {figure.problem}" if figure.problem else ""


@dataclass(frozen=True)
class ModelViewMap:
    """Every head as a small map (model_view_lines), laid out for the width it is given:
    as many heads to a line as fit, never fewer columns than MODEL_VIEW_COLUMNS."""

    attention: ModelAttention
    query: int | None
    max_tokens: int = THUMBNAIL_TOKENS
    # lines by width: measuring and drawing ask for the same width in one frame
    _laid_out: dict[int, list[str]] = field(default_factory=dict, compare=False, repr=False)

    def lines(self, width: int) -> list[str]:
        width = max(width, MODEL_VIEW_COLUMNS)
        if width not in self._laid_out:
            self._laid_out[width] = model_view_lines(
                self.attention, self.query, width, self.max_tokens
            )
        return self._laid_out[width]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        yield Text("\n".join(self.lines(options.max_width)), no_wrap=True)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        widest = max((len(line) for line in self.lines(options.max_width)), default=1)
        return Measurement(min(widest, MODEL_VIEW_COLUMNS), widest)
