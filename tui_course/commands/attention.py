"""`attn-tui attention [WORD...]`: an attention heatmap for a sentence, as text."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tui_course.commands import attention_model
from tui_course.commands.common import ascii_only, fail
from tui_course.content.blocks import EMBEDDING_SETS

if TYPE_CHECKING:
    from rich.console import Console

DEFAULT_SENTENCE = "The train left the station on time"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("attention", help="print an attention heatmap for a sentence")
    parser.add_argument(
        "words", nargs="*", metavar="WORD", help=f"the sentence (default: {DEFAULT_SENTENCE!r})"
    )
    parser.add_argument("--query", metavar="WORD", help="the word whose weights are listed")
    parser.add_argument("--heads", type=int, choices=(1, 2, 4), default=1)
    parser.add_argument("--causal", action="store_true", help="mask out later words")
    parser.add_argument("--no-scale", action="store_true", help="skip the 1/sqrt(d) scaling")
    parser.add_argument("--embeddings", choices=EMBEDDING_SETS, default="toy-train")
    parser.add_argument("--ascii", action="store_true", help="pure ASCII output")
    attention_model.add_model_flags(parser)
    parser.set_defaults(run=run)


def colour_console() -> Console | None:
    """A Rich console when stdout is a colour terminal, else None (plain text, no codes)."""
    import os

    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return None
    from rich.console import Console

    return Console(highlight=False)


def run(args: argparse.Namespace) -> int:
    from tui_course.maths.explore import AttentionSetup, NoWordsError, explore_attention
    from tui_course.render.blocks import BlockError, attention_extras, attention_summary, query_row
    from tui_course.render.heatmap import heatmap_cells, heatmap_rich, heatmap_text

    if attention_model.wants_model(args):
        return attention_model.run_model(args, DEFAULT_SENTENCE)
    if (flag := attention_model.model_flags_without_model(args)) is not None:
        return fail(f"attention: error: {flag} needs --model minilm (or --model-dir DIR)", 2)
    sentence = " ".join(args.words) or DEFAULT_SENTENCE
    setup = AttentionSetup(sentence, args.embeddings, not args.no_scale, args.causal, args.heads)
    try:
        result = explore_attention(setup)
    except NoWordsError as error:
        return fail(f"attention: error: WORD: {error}", 2)
    try:
        row = query_row(result, args.query) if args.query else 0
    except BlockError:
        words = ", ".join(dict.fromkeys(result.tokens))
        return fail(f"attention: error: --query: '{args.query}' is not one of: {words}", 2)
    console = colour_console()
    print(attention_summary(result))
    for note in result.notes:
        print(f"  {note}")
    for head in range(result.weights.shape[0]):
        print()
        if result.weights.shape[0] > 1:
            print(f"head {head + 1}")
        cells = heatmap_cells(result.weights[head], result.tokens, result.tokens, row)
        if console is not None:
            console.print(heatmap_rich(cells), soft_wrap=True)
        else:
            print(heatmap_text(cells))
    print()
    print("\n".join(attention_extras(result, row, {"output": True}, ascii_only(args.ascii))))
    return 0
