"""The real model's text views and the lab's state object, on hand-made weights."""

from __future__ import annotations

import numpy as np
import pytest

from tui_course.realmodel.attention import ModelAttention, QueryError
from tui_course.render.real_model import model_view_lines, top_lines
from tui_course.views.real_model import LabState

LABELS = ("[CLS]", "the", "animal", "was", "tired", "it", "[SEP]")


def attention() -> ModelAttention:
    weights = np.full((2, 3, 7, 7), 1 / 7, dtype=np.float32)
    weights[1, 2, 5] = [0.05, 0.05, 0.6, 0.05, 0.1, 0.1, 0.05]  # 'it' -> 'animal'
    weights[0, 1, 5] = [0.0, 0.0, 0.0, 0.0, 0.9, 0.1, 0.0]  # 'it' -> its neighbour 'tired'
    pieces_of_words = (0, 1, 2, 3, 4, 5, 6)
    return ModelAttention.of(LABELS, LABELS, pieces_of_words, weights, merge=False)


def test_the_telling_head_skips_neighbours_and_markers() -> None:
    view = attention()
    assert view.telling_head(5) == (1, 2)  # not layer 1 head 2, whose 0.9 is on a neighbour
    assert view.telling_head(5, layer=0) == (0, 0)
    assert view.default_query() == 1


def test_find_names_the_flag_and_lists_the_words() -> None:
    with pytest.raises(QueryError, match=r"^--query: 'dog' is not a word piece of the sentence"):
        attention().find("dog")
    assert attention().find("ANIMAL") == 2


def test_model_view_draws_every_head_within_the_width() -> None:
    wide = model_view_lines(attention(), 5, width=40)
    assert sum(line.startswith("> ") for line in wide) == 2  # all 3 heads side by side
    narrow = model_view_lines(attention(), 5, width=20)
    assert sum(line.startswith("> ") for line in narrow) == 2 * 2  # 2 heads, then 1
    maps = [line for line in narrow if line.startswith(("  ", "> "))]
    assert max(len(line) for line in maps) <= 20
    assert "L2H3" in "\n".join(narrow)


def test_top_lists_the_strongest_head_per_word() -> None:
    lines = top_lines(attention(), 5)
    animal = next(line for line in lines if line.strip().startswith("animal"))
    assert animal.split()[1:6] == ["layer", "2", "head", "3", "0.60"]
    assert not any(line.strip().startswith("it ") for line in lines[1:])


def test_lab_state_moves_wrap_and_links_choose_the_best_head() -> None:
    state = LabState().with_attention(attention(), ("a note",), query_word="it")
    assert (state.query, state.layer, state.head) == (5, 1, 2)
    assert state.move_layer(1).layer == 0
    assert state.move_head(1).head == 0
    assert state.move_query(3).query == 1
    assert state.toggle_view().model_view
    linked = state.move_layer(1).link("it", "tired")
    assert (linked.layer, linked.head, linked.query, linked.link_to) == (0, 1, 5, 4)
    assert linked.links[:2] == (
        "heads that link 'it' to 'tired' most:",
        "  layer 1 head 2: 0.90",
    )
    missing = state.link("it", "zebra")
    assert missing.links == (
        "to: 'zebra' is not a word piece of the sentence (they are: [CLS], the, animal,"
        " was, tired, it, [SEP])",
    )
    assert LabState().move_layer(1) == LabState()  # nothing loaded: nothing moves


def test_a_new_sentence_keeps_the_head_and_a_sensible_query() -> None:
    state = LabState().with_attention(attention(), ()).move_head(1)
    shorter = ModelAttention(("[CLS]", "hi", "[SEP]"), np.full((2, 3, 3, 3), 1 / 3, np.float32))
    again = state.with_attention(shorter, ())
    assert (again.layer, again.head) == (state.layer, state.head)
    assert again.query == 1  # clamped past the end would be [SEP]: the first word instead
    assert state.with_problem("broken").attention is None
