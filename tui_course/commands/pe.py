"""`attn-tui pe`: a sinusoidal positional-encoding table, as text."""

from __future__ import annotations

import argparse
from typing import Any

from tui_course.training.options import int_between


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("pe", help="print a sinusoidal positional-encoding table")
    parser.add_argument("--positions", type=int_between(1, 256), default=8, metavar="N")
    parser.add_argument("--dim", type=int_between(1, 512), default=4, metavar="D")
    parser.add_argument("--similarity", action="store_true", help="add the position-similarity map")
    parser.add_argument("--ascii", action="store_true", help="pure ASCII output")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_course.render.positional import pe_report

    print(pe_report(args.positions, args.dim, shaded=True, similarity=args.similarity))
    return 0
