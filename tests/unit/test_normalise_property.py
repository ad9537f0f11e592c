"""Properties of the one text normalisation (hypothesis): every spelling it promises to
forgive is forgiven, for any answer, and it is stable."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui_course.content.grading import MAX_RANGE, normalise_text

TEXT = st.text(alphabet="abcxyz0123456789 ,.-()[]{}_", max_size=30)
NAME = st.sampled_from(["x", "h", "pos", ""])


@given(TEXT)
def test_normalising_twice_changes_nothing(text: str) -> None:
    assert normalise_text(normalise_text(text)) == normalise_text(text)


@given(TEXT)
def test_case_and_outer_spaces_do_not_matter(text: str) -> None:
    assert normalise_text(f"  {text.upper()}  ") == normalise_text(text)


@given(st.lists(st.integers(0, 999), min_size=1, max_size=6), st.sampled_from("[{("))
def test_bracket_style_and_spaces_after_commas_do_not_matter(
    numbers: list[int], open_: str
) -> None:
    close = {"[": "]", "{": "}", "(": ")"}[open_]
    tight = "(" + ",".join(map(str, numbers)) + ")"
    loose = open_ + " " + " ,  ".join(map(str, numbers)) + " " + close
    assert normalise_text(loose) == normalise_text(tight)


@given(NAME, st.integers(0, 50), st.integers(1, MAX_RANGE), st.sampled_from(["-", "..", " to "]))
def test_a_range_reads_as_its_list(name: str, first: int, length: int, dash: str) -> None:
    last = first + length
    listed = ", ".join(f"{name}[{n}]" if name else str(n) for n in range(first, last + 1))
    assert normalise_text(f"{name}{first}{dash}{name}{last}") == normalise_text(listed)


@given(NAME, st.integers(0, 50), st.integers(0, 50))
def test_different_indexes_stay_different(name: str, first: int, second: int) -> None:
    if first != second:
        assert normalise_text(f"{name}{first}") != normalise_text(f"{name}{second}")
