"""The lab's statement about trained attention is computed from the weights, never assumed."""

from __future__ import annotations

import numpy as np
import pytest

from tui_course.training.findings import describe_findings, find_in_attention


def tied(length: int, first: float, last: float) -> np.ndarray:
    rest = (1.0 - first - last) / (length - 2)
    row = [first] + [rest] * (length - 2) + [last]
    return np.array([row] * length)


def test_heads_that_tie_first_and_last_are_counted() -> None:
    weights = np.stack([tied(30, 0.44, 0.45), tied(30, 0.3, 0.3), np.full((30, 30), 1 / 30)])
    findings = find_in_attention(weights, 2000)
    assert [h.tying_rows for h in findings.heads] == [30, 30, 0]
    assert findings.tying_heads == 2
    assert findings.heads[0].first == pytest.approx(0.44)
    lines = describe_findings(findings)
    assert lines[0] == (
        "Trained attention averaged over 2,000 test sequences (an even share is 3.3% per position):"
    )
    assert lines[1] == "  head 1: position 1 gets 44%, position 30 45%; 30/30 rows give both > 6.7%"
    assert lines[-1] == (
        "In 2 of 3 heads every position's new vector mixes the first and the last digit"
        " in one step."
    )


def test_a_model_that_does_not_link_them_is_told_so() -> None:
    weights = np.full((2, 12, 12), 1 / 12)
    weights[1, :, 5] += 0.3
    weights[1, :, 6] -= 0.3
    findings = find_in_attention(weights, 100)
    assert findings.tying_heads == 0
    lines = describe_findings(findings)
    assert lines[-2] == "  any other position: at most 38.3% (position 6, head 2)"
    assert lines[-1].startswith("No head gives both the first and the last position")


def test_some_rows_only() -> None:
    weights = np.full((1, 10, 10), 0.1)
    weights[0, 3] = [0.4, 0, 0, 0, 0, 0, 0, 0, 0, 0.6]
    findings = find_in_attention(weights, 10)
    assert findings.heads[0].tying_rows == 1
    assert describe_findings(findings)[-1].startswith("Some positions, in some heads")


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="expected"):
        find_in_attention(np.ones((2, 3, 4)), 1)


def test_lab_and_cli_say_so_when_a_summary_is_malformed() -> None:
    from tui_course.render.training import findings_lines
    from tui_course.training.protocol import AttentionSummary

    assert findings_lines(AttentionSummary(3, [[[1.0, 0.0], [1.0]]]))[0].startswith(
        "No attention summary: "
    )
    text = "\n".join(findings_lines(AttentionSummary(5, [[[0.45, 0.05, 0.05, 0.0, 0.45]] * 5])))
    assert text.splitlines()[1] == (
        "  head 1: position 1 gets 45%, position 5 45%; 5/5 rows give both > 40.0%"
    )


def test_the_shortest_sequence_the_form_allows_is_described() -> None:
    """specs.LENGTH starts at 2, and a run of length 2 ended with "No attention summary:
    expected ... L >= 3" in the lab. With two positions both keys always share the row."""
    weights = np.array([[[0.7, 0.3], [0.4, 0.6]]])
    findings = find_in_attention(weights, 50)
    assert findings.heads[0].busiest_other is None
    assert (findings.heads[0].first, findings.heads[0].last) == pytest.approx((0.55, 0.45))
    lines = describe_findings(findings)
    assert lines[1] == "  head 1: position 1 gets 55%, position 2 45%"
    assert lines[-2:] == [
        "With 2 digits there is no other position: every row splits its attention",
        "between the first and the last digit, so any model links them in one step.",
    ]
    with pytest.raises(ValueError, match="L >= 2"):
        find_in_attention(np.ones((1, 1, 1)), 1)
