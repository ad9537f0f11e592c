"""The figures each corrected lesson claim rests on (issue 16), asserted on the app's own maths.

A claim that needs the pretrained model runs it where the `real` extra and the weights are
installed, and is skipped with the command to install them otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tui_course.content.course import load_course
from tui_course.content.models import Kind
from tui_course.content.segments import BlockSegment
from tui_course.maths.attention import (
    dot_product_spread,
    head_split_example,
    projected_attention,
    split_heads,
)
from tui_course.maths.encoder import preference_flips, preference_shifts
from tui_course.maths.explore import AttentionSetup, explore_attention
from tui_course.maths.model_size import attention_parameters
from tui_course.realmodel.attention import ModelAttention
from tui_course.render.blocks import render_block

ROOT = Path(__file__).resolve().parents[2]


def lesson_text(name: str) -> str:
    return next((ROOT / "lessons").glob(f"{name}*.md")).read_text(encoding="utf-8")


def blocks(lesson_id: str, name: str) -> list[BlockSegment]:
    course = load_course(ROOT)
    lesson = next(lesson for lesson in course.lessons if lesson.id == lesson_id)
    return [s for s in lesson.segments if isinstance(s, BlockSegment) and s.name == name]


# lesson 5: each head projects all of x; what is split is the projected Q


def test_each_head_projects_all_of_x_and_the_split_is_of_the_projected_q() -> None:
    example = head_split_example(4, 2)
    split = example.split_projection("q")
    for head in range(2):
        q, _, _ = example.per_head(head)
        assert np.array_equal(split[head, 0], q)  # the projected Q, cut, is each head's q
        assert example.wq[head].shape == (4, 2)  # every head reads all 4 numbers of x
    # and cutting x itself would give something else: head 2 would never see x[0], x[1]
    assert not np.array_equal(split_heads(example.x[None, :], 2)[1, 0], split[1, 0])


def test_lesson_5_draws_the_projection_then_the_split() -> None:
    (block,) = blocks("multi-head", "heads")
    text = render_block(block)
    example = head_split_example(block.params.dim, block.params.heads)
    for head in range(example.heads):
        q = example.per_head(head)[0]
        assert f"head {head + 1}: [" + ", ".join(f"{v:g}" for v in q) + "]" in text
    assert "x itself is never cut" in text
    assert "has shape (2, 3, 2)" in text  # (heads, tokens, key_dim) for 3 tokens
    assert "x[0]" not in text
    assert "Split** the model dimension" not in lesson_text("05")


def test_key_dim_is_one_heads_size_with_the_counts_the_lesson_prints() -> None:
    assert attention_parameters(32, 4, 16) == 8_416  # the lab: 4 x 16 = 64 wide
    assert attention_parameters(32, 4, 8) == 4_224  # a d / h split
    assert attention_parameters(256, 4, 256) == 1_051_904  # the source's key_dim=embed_dim
    lab, source = blocks("multi-head", "key-dim")
    assert "8,416" in render_block(lab) and "4,224" in render_block(lab)
    assert "1,051,904" in render_block(source) and "full-width heads" in render_block(source)
    # and the count is the one the layer really computes with: Q, K, V of 4 x 16 numbers
    rng = np.random.default_rng(0)
    from tui_course.maths.attention import random_projections

    projections = random_projections(32, 4, rng, key_dim=16)
    assert projections.wq.shape == (32, 64)
    output, weights = projected_attention(rng.normal(size=(5, 32)), projections)
    assert output.shape == (5, 32) and weights.shape == (4, 5, 5)


def test_the_cost_claim_holds_only_for_a_d_over_h_split() -> None:
    quiz = next(q for q in load_course(ROOT).quizzes if q.id == "understanding")
    heads = next(q for q in quiz.questions if q.prompt.startswith("Why use several"))
    assert "d/h slice" not in heads.explanation and "key_dim = d / h" in heads.explanation
    assert 64 in [q.answer for q in quiz.questions if q.kind is Kind.NUMERIC]


def test_try_it_yourself_asks_about_the_projected_queries_of_several_tokens() -> None:
    quiz = next(q for q in load_course(ROOT).quizzes if q.id == "exercises")
    numeric, shape = quiz.questions[1], quiz.questions[2]
    assert "projected queries" in numeric.prompt and "Q = [[" in numeric.prompt
    queries = [[3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8], [1, 4, 1, 4, 2, 1, 3, 5]]
    assert shape.answer[0] == str(split_heads(queries, 2).shape) == "(2, 3, 4)"


# lesson 3: why sqrt(d), and length counts


def test_dot_products_of_unit_variance_components_spread_like_sqrt_d() -> None:
    dims = [4, 16, 64, 256]
    for d, spread in zip(dims, dot_product_spread(dims), strict=True):
        assert spread / np.sqrt(d) == pytest.approx(1.0, abs=0.08)


def test_stations_weight_on_itself_and_trains_score_are_length_times_cosine() -> None:
    """Lesson 3's figures: the lengths, the cosine (0.85, not called close to 1) and the
    score as their product, all as the figure prints them."""
    result = explore_attention(AttentionSetup("The train left the station on time"))
    station, train = result.tokens.index("station"), result.tokens.index("train")
    assert round(float(result.weights[0, station, station]), 2) == 0.47
    lengths = np.linalg.norm(result.vectors, axis=1)
    assert int(np.argmax(lengths)) == station  # the longest vector of the sentence
    unit = result.vectors / lengths[:, None]
    cosine = float(unit[station] @ unit[train])
    score = float(result.vectors[station] @ result.vectors[train])
    said = (lengths[station], lengths[train], cosine, lengths[station] ** 2, score)
    assert [round(float(value), 2) for value in said] == [2.42, 2.22, 0.85, 5.88, 4.56]
    assert score == pytest.approx(lengths[station] * lengths[train] * cosine)
    (block,) = blocks("self-attention", "attention")[1:]
    assert block.params.norms and block.params.query == "station"
    figure = render_block(block)
    assert "'station' . 'train' = 4.56 (cosine 0.85)" in figure and "= 5.88" in figure
    text = " ".join(lesson_text("03").split())
    for words in ("(2.42)", "scores 5.88", "cosine below is 0.85", "(2.22)", "score, 4.56"):
        assert words in text, words
    assert "close to 1) yet" not in text


# lesson 4: the pronoun head in both sentences


def real_pair() -> tuple[ModelAttention, ModelAttention]:
    from tui_course.realmodel import ModelError, load_model

    try:
        model = load_model()
    except ModelError as error:
        pytest.skip(f"needs the real model: {error}")
    pairs = []
    for end in ("tired", "wide"):
        tokens = model.attend(f"The animal didn't cross the street because it was too {end}.")
        pairs.append(
            ModelAttention.of(
                tokens.tokens.pieces,
                tokens.tokens.words,
                tokens.tokens.word_of_piece,
                tokens.attentions,
                True,
            )
        )
    return pairs[0], pairs[1]


def test_the_pronoun_story_says_what_it_measures_and_the_model_agrees() -> None:
    """Lesson 4's words, each against the model: the head shown, the five heads that move
    towards 'street', and no head changing sides by more than 0.02."""
    tired, wide = real_pair()
    indexes = [(tired.find(w), wide.find(w)) for w in ("it", "animal", "street")]
    flips = preference_flips(tired.weights, wide.weights, *indexes)
    shifts = preference_shifts(tired.weights, wide.weights, *indexes)
    assert flips.shape == shifts.shape == (6, 12)
    (it, it2), (animal, animal2), (street, street2) = indexes
    head, wide_head = tired.weights[3, 1, it], wide.weights[3, 1, it2]
    assert round(float(head[animal]), 2) == 0.68  # "about two thirds"
    assert (
        round(float(wide_head[animal]), 2) == 0.28 and round(float(wide_head[street2]), 2) == 0.12
    )
    assert round(float(head[animal] - wide_head[animal2]), 2) == 0.40  # "takes 0.40 off"
    assert wide_head[animal2] > wide_head[street2]  # still prefers animal
    assert int((shifts < -0.1).sum()) == 5 and int((shifts > 0.1).sum()) == 0  # "five heads"
    assert np.unravel_index(int(np.argmin(shifts)), shifts.shape) == (3, 1)  # "the head above"
    before = float(head[animal] - head[street])
    assert (round(before, 2), round(before + float(shifts[3, 1]), 2)) == (0.63, 0.16)
    assert round(float(flips.max()), 2) == 0.02  # "the largest ... is 0.02"
    text = " ".join(lesson_text("04").split())
    for said in (
        "0.68 down to 0.28",
        "(0.12)",
        "in five heads",
        "from 0.63 to 0.16",
        "is 0.02, far below 0.1",
        "weight on *animal* minus its weight on *street*",
    ):
        assert said in text, said


def test_lesson_4_shows_the_pair_and_says_weights_are_not_explanations() -> None:
    (block,) = blocks("queries-keys-values", "real-attention")
    assert block.params.compare.endswith("too wide.")
    assert block.params.between == ("animal", "street")
    text = lesson_text("04")
    assert "not an explanation" in text
    assert "| it   | [0.8, 0.9, 0.1, 0.0] |" in text  # the toy vectors as a table


def test_flips_count_either_way_and_only_when_the_preference_changes_sign() -> None:
    first = np.zeros((1, 2, 1, 2), dtype=np.float32)
    second = np.zeros((1, 2, 1, 2), dtype=np.float32)
    first[0, 0, 0] = [0.6, 0.1]  # prefers the first word by 0.5 ...
    second[0, 0, 0] = [0.2, 0.5]  # ... then the second by 0.3: a flip of 0.3
    first[0, 1, 0] = [0.6, 0.1]
    second[0, 1, 0] = [0.3, 0.2]  # weaker, but the same preference: no flip
    flips = preference_flips(first, second, (0, 0), (0, 0), (1, 1))
    assert flips[0].tolist() == pytest.approx([0.3, 0.0])


# smaller claims


def test_the_smaller_corrections_are_in_the_text() -> None:
    quiz = next(q for q in load_course(ROOT).quizzes if q.id == "understanding")
    layer_norm = next(q for q in quiz.questions if "LayerNorm rather" in q.prompt)
    assert "each token's vector" in layer_norm.options[layer_norm.answer - 1]
    assert "each sequence on its own" not in layer_norm.options[layer_norm.answer - 1]
    assert "sees itself and" in lesson_text("09")  # a decoder token sees itself too
    assert "time axis" in lesson_text("01")  # only the steps in time are sequential
    assert "however long your sentences are" not in lesson_text("01")
    assert "number of components" in lesson_text("04")  # d_k counts components
    assert "one of those 72 heads" in lesson_text("02").replace("**", "")


# the material the course had left out of the source (issue 16, item 3)


def test_the_encoder_layer_listing_is_the_sources_with_its_mask_and_compiles() -> None:
    text = lesson_text("07")
    listing = text.split("```python run keras\n", 1)[1].split("```", 1)[0]  # runnable
    compile(listing, "lesson 7", "exec")  # real Python, whatever runs it
    assert "class TransformerEncoder(layers.Layer):" in listing
    assert "mask = mask[:, tf.newaxis, :]" in listing
    assert "attention_mask=mask" in listing and "key_dim=embed_dim" in listing
    assert "(batch, 1, keys)" in text  # and what the new axis is for


def test_llms_are_named_and_set_against_the_labs_parameter_count() -> None:
    text = lesson_text("09")
    for phrase in ("ChatGPT", "Claude", "answer questions", "write code", "honest"):
        assert phrase in text
    (block,) = blocks("transformers-to-llms", "params")
    assert render_block(block) == (
        "The lab's model (one encoder block): 14,049 trainable parameters"
    )
    assert "billions of parameters" in text and "dozens of blocks" in text
    flat = " ".join(text.split())
    # the ratios the lesson states, against the lab's own count
    assert round(7e9 / 14_049, -5) == 500_000 and "7 billion parameters is about 500,000" in flat
    assert round(175e9 / 14_049, -6) == 12_000_000 and "175 billion, about 12 million" in flat
    assert "hundreds of thousands of times" not in flat


def test_learned_positions_and_layer_norm_are_explained() -> None:
    assert "simpler" in lesson_text("06") and "about as" in lesson_text("06")
    text = " ".join(lesson_text("07").split())
    assert "each token's vector on its own, over the embedding axis" in text.replace("**", "")
    assert "padding that would pollute the averages" in text


# issue 27 item 20: the smaller untruths


def test_lesson_7_says_which_lines_are_the_sources_and_lesson_10_names_its_layer() -> None:
    seven = " ".join(lesson_text("07").split())
    assert "The source builds the block as a Keras layer of its own:" not in seven
    assert "from \"Try it\" on, are this course's addition, not the source's" in seven
    listing = lesson_text("07").split("```python run keras\n", 1)[1].split("```", 1)[0]
    assert "# Try it:" in listing  # the addition the text points at is there
    ten = " ".join(lesson_text("10").split())
    assert "The source names this layer `PositionEmbedding`" in ten
    assert "class AddPositions(layers.Layer):" in lesson_text("10")


def test_the_next_module_is_the_roadmaps_and_seq2seq_the_next_step() -> None:
    quiz = next(q for q in load_course(ROOT).quizzes if q.id == "understanding")
    question = next(q for q in quiz.questions if "comes right after this one" in q.prompt)
    assert question.options[question.answer - 1].startswith("Transfer learning")
    eleven = " ".join(lesson_text("11").split())
    assert "11. Transfer learning" in lesson_text("11")
    assert "the module that follows this one is transfer learning" in eleven
    assert "For the Transformer itself, the natural next step is **sequence-to-sequence" in eleven
