"""What a trained model's attention does, computed from the weights a run saved.

The lesson does not guess where the model looks: the child averages the
trained attention over every test sequence, and these functions state what
those averages show (no Keras, no Textual: the lab and `attn-tui train` share it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

TIE_FACTOR = 2.0  # "clearly more than an even share": twice 1 / length


@dataclass(frozen=True)
class HeadFinding:
    head: int  # 1-based
    first: float  # mean weight any query gives to position 1
    last: float  # ... and to the last position
    busiest_other: int | None  # 1-based position, not first or last, with the most weight
    busiest_other_weight: float
    tying_rows: int  # query positions giving both first and last more than TIE_FACTOR / length


@dataclass(frozen=True)
class AttentionFindings:
    length: int
    sequences: int
    heads: tuple[HeadFinding, ...]

    @property
    def even_share(self) -> float:
        return 1.0 / self.length

    @property
    def tying_heads(self) -> int:
        """Heads in which every query position gives first and last more than the threshold."""
        return sum(head.tying_rows == self.length for head in self.heads)


def find_in_attention(mean_weights: ArrayLike, sequences: int) -> AttentionFindings:
    """mean_weights[head][query][key], averaged over `sequences` test sequences."""
    weights = np.asarray(mean_weights, dtype=np.float64)
    heads, length, keys = weights.shape
    if length != keys or length < 2:  # specs.LENGTH starts at 2: a first and a last digit
        raise ValueError(f"expected (heads, L, L) weights with L >= 2, got {weights.shape}")
    threshold = TIE_FACTOR / length
    found = []
    for head in range(heads):
        matrix = weights[head]
        column_means = matrix.mean(axis=0)
        middle = column_means[1:-1]
        busiest = int(np.argmax(middle)) + 1 if len(middle) else None
        ties = int(np.sum((matrix[:, 0] > threshold) & (matrix[:, -1] > threshold)))
        found.append(
            HeadFinding(
                head=head + 1,
                first=float(column_means[0]),
                last=float(column_means[-1]),
                busiest_other=None if busiest is None else busiest + 1,
                busiest_other_weight=0.0 if busiest is None else float(column_means[busiest]),
                tying_rows=ties,
            )
        )
    return AttentionFindings(length, sequences, tuple(found))


def describe_findings(findings: AttentionFindings) -> list[str]:
    """Plain sentences, each one a number computed above."""
    length = findings.length
    even = findings.even_share
    lines = [
        f"Trained attention averaged over {findings.sequences:,} test sequences "
        f"(an even share is {even:.1%} per position):"
    ]
    for head in findings.heads:
        rows = f"; {head.tying_rows}/{length} rows give both > {TIE_FACTOR * even:.1%}"
        lines.append(
            f"  head {head.head}: position 1 gets {head.first:.0%}, position {length} "
            f"{head.last:.0%}{rows if length > 2 else ''}"
        )
    if length == 2:
        # Two weights per row always sum to 1: "more than twice an even share" cannot happen.
        lines.append("With 2 digits there is no other position: every row splits its attention")
        lines.append("between the first and the last digit, so any model links them in one step.")
        return lines
    others = max(findings.heads, key=lambda h: h.busiest_other_weight)
    lines.append(
        f"  any other position: at most {others.busiest_other_weight:.1%} "
        f"(position {others.busiest_other}, head {others.head})"
    )
    tying = findings.tying_heads
    total = len(findings.heads)
    if tying:
        lines.append(
            f"In {tying} of {total} heads every position's new vector mixes the first and the "
            f"last digit in one step."
        )
    elif any(head.tying_rows for head in findings.heads):
        lines.append(
            "Some positions, in some heads, give both the first and the last digit more than "
            "twice an even share; no head does it for every position."
        )
    else:
        lines.append(
            "No head gives both the first and the last position more than twice an even share: "
            "this model does not link them directly."
        )
    return lines
