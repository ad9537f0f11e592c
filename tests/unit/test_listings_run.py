"""The course's runnable listings run, and print what their lessons say; a hostile edit is
stopped by the sandbox. Uses the real sandbox (bwrap where it works, else rlimits)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import REPO
from tui_course.content.lessons import load_lessons
from tui_course.content.segments import ListingRunner, ListingSegment
from tui_course.listings import run as listings
from tui_course.listings.run import KERAS_MISSING, ListingOutcome, run_listing


def shipped_listings() -> dict[str, list[ListingSegment]]:
    found, problems = load_lessons(REPO / "lessons", REPO)
    assert not problems
    return {
        lesson.id: [s for s in lesson.segments if isinstance(s, ListingSegment)] for lesson in found
    }


def test_lesson_3_and_6_listings_print_the_lessons_figures() -> None:
    listed = shipped_listings()
    loop, vectorised = listed["self-attention"]
    for listing in (loop, vectorised):
        result = run_listing(listing.code, listing.runner)
        assert result.outcome is ListingOutcome.RAN, result
        assert "[0.419 0.523 0.147]" in result.stdout  # the new "sat" of worked figure A
    assert (
        run_listing(loop.code, loop.runner).stdout
        == run_listing(vectorised.code, vectorised.runner).stdout
    )
    (encoding,) = listed["positional-encoding"]
    printed = run_listing(encoding.code, encoding.runner).stdout
    assert "[ 0.841  0.54   0.01   1.   ]" in printed  # worked figure C, position 1


def test_every_numpy_listing_runs_to_its_end() -> None:
    for lesson_id, found in shipped_listings().items():
        for listing in found:
            if listing.runner is ListingRunner.NUMPY:
                result = run_listing(listing.code, listing.runner)
                assert result.outcome is ListingOutcome.RAN, (lesson_id, listing.line, result)


def test_an_edited_listing_that_loops_or_fails_gets_a_named_outcome() -> None:
    looped = run_listing("while True:\n    pass\n", ListingRunner.NUMPY, wall_seconds=2)
    assert looped.outcome is ListingOutcome.TIME_LIMIT
    failed = run_listing("x = 1\ny = x / 0\n", ListingRunner.NUMPY)
    assert failed.outcome is ListingOutcome.ERROR
    assert failed.detail == "ZeroDivisionError: division by zero (line 2)"
    broken = run_listing("print(\n", ListingRunner.NUMPY)
    assert broken.outcome is ListingOutcome.SYNTAX_ERROR and "line 1" in broken.detail
    private = run_listing("import tui_course\n", ListingRunner.NUMPY)
    assert private.outcome is ListingOutcome.ERROR and "ModuleNotFoundError" in private.detail


def test_a_flood_of_output_is_capped() -> None:
    result = run_listing("print('x' * 100_000_000)\n", ListingRunner.NUMPY)
    assert result.stdout_cut and len(result.stdout) <= 64 * 1024


def test_a_keras_listing_says_what_to_install_when_keras_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        listings.importlib.util,
        "find_spec",
        lambda name, *args: None if name in ("keras", "tensorflow") else real(name, *args),
    )
    result = run_listing("import keras\n", ListingRunner.KERAS)
    assert result.outcome is ListingOutcome.UNAVAILABLE and result.detail == KERAS_MISSING
    assert "pip install 'attn-tui[train]'" in KERAS_MISSING


@pytest.mark.skipif(
    importlib.util.find_spec("keras") is None, reason="needs the 'train' extra (Keras)"
)
def test_the_keras_listings_print_what_their_lessons_state() -> None:
    listed = shipped_listings()
    (shape,) = listed["multi-head"]
    (encoder,) = listed["encoder-block"]
    assert shape.runner is encoder.runner is ListingRunner.KERAS
    result = run_listing(shape.code, shape.runner)
    assert result.outcome is ListingOutcome.RAN, result
    assert result.stdout.strip() == "(2, 10, 256) -> (2, 10, 256)"
    # the source's TransformerEncoder: same shape out, and the padding mask really masks
    result = run_listing(encoder.code, encoder.runner)
    assert result.outcome is ListingOutcome.RAN, result
    assert result.stdout.splitlines() == ["output shape: (1, 5, 16)", "padding ignored: True"]
