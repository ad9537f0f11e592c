"""`attn-tui attention [WORD...]`: an attention heatmap for a sentence, as text."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tui_course import specs
from tui_course.commands import attention_model
from tui_course.commands.common import ascii_only, colour_console, fail

if TYPE_CHECKING:
    from tui_course.maths.explore import AttentionResult, AttentionSetup

DEFAULT_SENTENCE = "The train left the station on time"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "attention",
        help="print an attention heatmap for a sentence",
        description="Print the attention weights of every word of a sentence over the others.",
        epilog=(
            "example:\n  attn-tui attention --embeddings toy-cat-sat --query sat the cat sat down"
        ),
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="WORD",
        help=f"the sentence, up to {specs.SENTENCE_WORDS.high} words "
        f"(default: {DEFAULT_SENTENCE!r})",
    )
    parser.add_argument(
        "--query", metavar="WORD", help="the word whose weights are listed (default: the first)"
    )
    specs.int_argument(parser, specs.ATTENTION_HEADS)
    parser.add_argument("--causal", action="store_true", help="mask out later words")
    parser.add_argument(
        "--no-scale", action="store_true", help="skip dividing the scores by sqrt(d_head)"
    )
    specs.choice_argument(parser, specs.EMBEDDINGS)
    parser.add_argument("--ascii", action="store_true", help="pure ASCII output")
    parser.add_argument(
        "--absolute",
        action="store_true",
        help="shade on a fixed 0-100%% scale (default: up to the largest weight shown)",
    )
    attention_model.add_model_flags(parser)
    parser.set_defaults(run=run)


def terminal_width() -> int:
    """The columns a printed figure may use: the terminal's, $COLUMNS, or 80 when piped."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def typed_with_model(
    setup: AttentionSetup, query: str, hashed: AttentionResult
) -> tuple[AttentionResult, int | None]:
    """No toy set knows the sentence: the real model's head when it is installed, else the
    hashed result with a note naming what to install."""
    from dataclasses import replace

    from tui_course.realmodel.service import attend_or_problem
    from tui_course.render.real_model import typed_sentence_result

    attention = attend_or_problem(setup.sentence)
    if isinstance(attention, str):
        note = f"The real model is not shown: {attention}"
        return replace(hashed, notes=(*hashed.notes, note)), None
    return typed_sentence_result(setup, attention, query)


def run(args: argparse.Namespace) -> int:
    from tui_course.content.blocks.attention import AttentionParams
    from tui_course.maths.embeddings import tokenize
    from tui_course.maths.explore import AttentionSetup, NoWordsError, explore_attention
    from tui_course.render.blocks import (
        BlockError,
        attention_extras,
        attention_summary,
        head_title,
        query_row,
    )
    from tui_course.render.heatmap import heatmap_cells, heatmap_rich, heatmap_text

    if attention_model.wants_model(args):
        return attention_model.run_model(args, DEFAULT_SENTENCE)
    if (flag := attention_model.model_flags_without_model(args)) is not None:
        return fail(f"attention: error: {flag} needs --model minilm (or --model-dir DIR)", 2)
    sentence = " ".join(args.words) or DEFAULT_SENTENCE
    count, limit = len(tokenize(sentence)), specs.SENTENCE_WORDS.high
    if count > limit:
        return fail(f"attention: error: WORD: at most {limit} words, got {count}", 2)
    setup = AttentionSetup(sentence, args.embeddings, not args.no_scale, args.causal, args.heads)
    try:
        result = explore_attention(setup)
    except NoWordsError as error:
        return fail(f"attention: error: WORD: {error}", 2)
    real_row = None
    if result.fallback is not None:
        result, real_row = typed_with_model(setup, args.query or result.tokens[0], result)
    try:
        row = query_row(result, args.query) if args.query else (real_row or 0)
    except BlockError:
        words = ", ".join(dict.fromkeys(result.tokens))
        return fail(f"attention: error: --query: '{args.query}' is not one of: {words}", 2)
    console = colour_console()
    print(attention_summary(result))
    for note in result.notes:
        print(f"  {note}")
    for head in range(result.heads):
        print()
        if result.heads > 1:
            print(head_title(result, head))
        cells = heatmap_cells(
            result.weights[head],
            result.tokens,
            result.tokens,
            row,
            width=terminal_width(),
            absolute=args.absolute,
        )
        if console is not None:
            console.print(heatmap_rich(cells), soft_wrap=True)
        else:
            print(heatmap_text(cells))
    print()
    under = AttentionParams(args.embeddings, output=True)  # the query's weights and new vector
    print("\n".join(attention_extras(result, row, under, ascii_only(args.ascii))))
    return 0
