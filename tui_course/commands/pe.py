"""`attn-tui pe`: a sinusoidal positional-encoding table, as text."""

from __future__ import annotations

import argparse
from typing import Any

from tui_course import specs


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "pe",
        help="print a sinusoidal positional-encoding table",
        description="Print sinusoidal positional encodings, shaded, and optionally how alike "
        "positions are (cosine similarity, -1 to +1).",
        epilog="example:\n  attn-tui pe --positions 4 --dim 2 --similarity",
    )
    specs.int_argument(parser, specs.POSITIONS)
    specs.int_argument(parser, specs.DIM, metavar="D")
    specs.int_argument(parser, specs.START, metavar="POS")
    parser.add_argument("--similarity", action="store_true", help="add the position-similarity map")
    parser.add_argument("--ascii", action="store_true", help="pure ASCII output")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.commands.attention import terminal_width
    from tui_course.render.positional import pe_report

    print(
        pe_report(
            args.positions,
            args.dim,
            start=args.start,
            shaded=True,
            similarity=args.similarity,
            width=terminal_width(),
        )
    )
    return 0
