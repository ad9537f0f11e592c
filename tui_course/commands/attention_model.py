"""`attn-tui attention --model minilm "a sentence"`: a pretrained model's heads, as text.

The flags are added to the `attention` command by add_model_flags; its run
hands over to run_model as soon as --model or --model-dir is given.
"""

from __future__ import annotations

import argparse
import json
import shutil
from typing import TYPE_CHECKING, Any

from tui_course import specs
from tui_course.commands.common import ascii_only, colour_console, data_dir, fail

if TYPE_CHECKING:
    from tui_course.realmodel.attention import ModelAttention
    from tui_course.realmodel.loading import RealModel

MODEL_FLAGS = ("model_view", "top", "json")


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "a pretrained model (needs the 'real' extra and the weights; see docs/real-model.md)"
    )
    group.add_argument(
        "--model",
        choices=("minilm",),
        help="run all-MiniLM-L6-v2 (6 layers x 12 heads) on the sentence instead of toy vectors",
    )
    group.add_argument(
        "--model-dir",
        metavar="DIR",
        help="a Hugging Face BERT folder to use (config.json, model.safetensors, tokenizer)",
    )
    for spec, metavar, count in ((specs.MODEL_LAYER, "L", 6), (specs.MODEL_HEAD, "H", 12)):
        group.add_argument(
            f"--{spec.name}",
            type=int,  # checked against the loaded model's own count, which names the limit
            metavar=metavar,
            help=f"{spec.help}, up to the model's own count ({count} in minilm) "
            f"(default: the {spec.name} linking the query most; e.g. {spec.example})",
        )
    view = group.add_mutually_exclusive_group()
    view.add_argument("--model-view", action="store_true", help="every head as a small map")
    view.add_argument(
        "--top",
        action="store_true",
        help="the heads giving the query its strongest link to each word",
    )
    view.add_argument(
        "--json",
        action="store_true",
        help='print {"tokens": [...], "weights": [layer][head][query][key]}',
    )
    group.add_argument(
        "--merge-words",
        action="store_true",
        help="one row per typed word instead of per word piece (pieces' weights added)",
    )


def wants_model(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "model", None) or getattr(args, "model_dir", None))


def toy_only_flags(args: argparse.Namespace) -> str | None:
    """A flag of the toy figure given with --model, which would be silently ignored."""
    for flag, given in (
        ("--causal", args.causal),
        ("--no-scale", args.no_scale),
        ("--heads", args.heads != 1),
        ("--embeddings", args.embeddings != "toy-train"),
    ):
        if given:
            return flag
    return None


def model_flags_without_model(args: argparse.Namespace) -> str | None:
    for name in ("layer", "head"):
        if getattr(args, name, None) is not None:
            return f"--{name}"
    for name in (*MODEL_FLAGS, "merge_words"):
        if getattr(args, name, False):
            return "--" + name.replace("_", "-")
    return None


def _numbered(value: int | None, count: int, flag: str) -> int | None:
    if value is None:
        return None
    if not 1 <= value <= count:
        raise ValueError(f"{flag}: must be between 1 and {count}, got {value}")
    return value - 1


def run_model(args: argparse.Namespace, default_sentence: str) -> int:
    from tui_course.realmodel import ModelError, load_model
    from tui_course.realmodel.attention import QueryError, attention_of

    toy = toy_only_flags(args)
    if toy is not None:
        return fail(f"attention: error: {toy} is for the toy vectors, not --model", 2)
    sentence = " ".join(args.words) or default_sentence
    if args.words and not " ".join(args.words).strip():
        return fail("attention: error: WORD: the sentence is empty: type a few words", 2)
    try:
        cache = data_dir(args)
    except OSError:
        cache = None
    try:
        model = load_model(args.model_dir, cache)
        result = model.attend(sentence)
    except ModelError as error:
        return fail(f"attention: error: {error}", 2)
    except (OSError, MemoryError) as error:
        return fail(f"attention: error: {ModelError(f'the model could not run ({error})')}", 1)
    attention = attention_of(result, args.merge_words)
    try:
        layer = _numbered(args.layer, attention.layers, "--layer")
        head = _numbered(args.head, attention.heads, "--head")
        query = attention.find(args.query) if args.query else None
    except (ValueError, QueryError) as error:
        return fail(f"attention: error: {error}", 2)
    if args.json:
        print(json.dumps(_json(attention, layer, head, model, result.notes)))
        return 0
    print(
        f"{model.name}: {attention.layers} layers x {attention.heads} heads,"
        f" {len(attention.labels)} {'words' if attention.merged else 'word pieces'}"
        f" (weights from {model.source.origin})"
    )
    for note in result.notes:
        print(f"  note: {note}")
    width = shutil.get_terminal_size((80, 24)).columns
    if args.model_view:
        print()
        print("\n".join(_model_view(attention, query, layer, width)))
        return 0
    chosen_query = attention.default_query() if query is None else query
    if args.top:
        from tui_course.render.real_model import top_lines

        print()
        print("\n".join(top_lines(attention, chosen_query)))
        return 0
    _print_head(attention, chosen_query, layer, head, width, ascii_only(args.ascii))
    return 0


def _model_view(
    attention: ModelAttention, query: int | None, layer: int | None, width: int
) -> list[str]:
    from tui_course.render.real_model import model_view_lines

    layers = None if layer is None else [layer]  # --layer L: that band only
    return model_view_lines(attention, query, width, layers=layers)


def _print_head(
    attention: ModelAttention,
    query: int,
    layer: int | None,
    head: int | None,
    width: int,
    ascii: bool,
) -> None:
    from tui_course.render.heatmap import heatmap_rich, heatmap_text
    from tui_course.render.real_model import head_cells, query_bars

    chosen_layer, chosen_head = attention.telling_head(query, layer, head)
    print()
    if layer is None or head is None:
        print(
            f"(layer {chosen_layer + 1}, head {chosen_head + 1}: the head giving"
            f" '{attention.labels[query]}' its strongest link to a word not next to it;"
            " choose with --layer and --head)"
        )
    cells = head_cells(attention, chosen_layer, chosen_head, query, width=width)
    console = colour_console()
    if console is not None:
        console.print(heatmap_rich(cells), soft_wrap=True)
    else:
        print(heatmap_text(cells))
    print()
    print(query_bars(attention, chosen_layer, chosen_head, query, ascii))


def _json(
    attention: ModelAttention,
    layer: int | None,
    head: int | None,
    model: RealModel,
    notes: tuple[str, ...],
) -> dict[str, Any]:
    import numpy as np

    layers = list(range(attention.layers)) if layer is None else [layer]
    heads = list(range(attention.heads)) if head is None else [head]
    weights = attention.weights[np.ix_(layers, heads)]
    return {
        "model": model.name,
        "tokens": list(attention.labels),
        "merged_words": attention.merged,
        "layers": [n + 1 for n in layers],
        "heads": [n + 1 for n in heads],
        "weights": np.round(weights.astype(np.float64), 6).tolist(),
        "notes": list(notes),
    }
