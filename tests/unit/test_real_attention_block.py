"""The ```real-attention``` lesson block: validated like the others, drawn without the model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tui_course.content.blocks.real_attention import RealAttentionParams
from tui_course.realmodel.attention import ModelAttention
from tui_course.render.blocks import BlockError, real_attention_lines
from tui_course.validation.course import validate

LESSON = """+++
id = "real"
title = "Real"
order = 1
+++

# Real

```real-attention
{body}
```
"""


def problems_for(tmp_path: Path, body: str) -> list[str]:
    (tmp_path / "lessons").mkdir(exist_ok=True)
    (tmp_path / "quizzes").mkdir(exist_ok=True)
    (tmp_path / "lessons" / "real.md").write_text(LESSON.format(body=body), encoding="utf-8")
    return [str(problem) for problem in validate(tmp_path).problems]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('sentence = "the cat sat"\nquery = "cat"', None),
        (
            'sentence = "the cat sat"',
            "lessons/real.md:10: real-attention block: missing required key 'query'"
            " (a word of the sentence)",
        ),
        (
            'sentence = "the cat sat"\nquery = "dog"',
            "lessons/real.md:9: real-attention block: query 'dog' is not a word of the sentence",
        ),
        (
            'sentence = "the cat sat"\nquery = "cat"\nembeddings = "toy-dog"',
            "lessons/real.md:12: real-attention block: unknown embeddings 'toy-dog'"
            " (known: toy-cat-sat, toy-it, toy-train, hashed)",
        ),
        (
            'sentence = "the cat sat"\nquery = "cat"\nlayer = 0',
            "lessons/real.md:12: real-attention block: 'layer' must be from 1 to 64, got 0",
        ),
        (
            'sentence = "the cat sat"\nquery = "cat"\nheads = 2',
            "lessons/real.md:12: real-attention block: unknown key 'heads'"
            " (allowed: between, compare, embeddings, head, layer, query, sentence)",
        ),
    ],
)
def test_the_block_is_validated(tmp_path: Path, body: str, message: str | None) -> None:
    assert problems_for(tmp_path, body) == ([message] if message else [])


def model_attention() -> ModelAttention:
    labels = ("[CLS]", "the", "cat", "sat", "[SEP]")
    weights = np.full((2, 3, 5, 5), 0.2, dtype=np.float32)
    weights[1, 2, 2] = [0.1, 0.0, 0.1, 0.7, 0.1]  # layer 2, head 3: 'cat' looks at 'sat'
    return ModelAttention(labels, weights, merged=True)


def test_the_real_half_uses_the_given_head_or_the_telling_one() -> None:
    params = RealAttentionParams("the cat sat", "cat", embeddings="toy-cat-sat")
    chosen = real_attention_lines(params, model_attention())
    assert chosen[0] == "'cat' with toy vectors (toy-cat-sat):"
    start = chosen.index("'cat' in all-MiniLM-L6-v2, layer 2 head 3")
    # one head of the model's six, and said so: the lesson's link rests on it alone
    assert chosen[start + 1 : start + 3] == [
        "(one of its 6 heads: the one with",
        "its strongest link past its neighbours):",
    ]
    sat = next(line for line in chosen[start + 3].splitlines() if line.split()[0] == "sat")
    assert sat.split()[1] == "0.70" and sat.endswith("strongest")
    # how many of the heads make that link at all (only layer 2 head 3 gives 'sat' 0.7)
    assert chosen[-2:] == ["'cat' gives 'sat' more than 0.2", "in 1 of the 6 heads"]
    given = real_attention_lines(replace(params, layer=1, head=1), model_attention())
    assert "'cat' in all-MiniLM-L6-v2, layer 1 head 1:" in given


def test_a_head_the_model_does_not_have_is_a_figure_error() -> None:
    params = RealAttentionParams("the cat sat", "cat", layer=7, head=1)
    with pytest.raises(
        BlockError,
        match="the real model: it has 2 layers of 3 heads; the block asks layer 7, head 1",
    ):
        real_attention_lines(params, model_attention())


def pair_attention(animal: float, street: float) -> ModelAttention:
    """'it' over (animal, street) in every head of a 2 x 3 model, one head set apart."""
    labels = ("[CLS]", "animal", "street", "it", "[SEP]")
    weights = np.full((2, 3, 5, 5), 0.2, dtype=np.float32)
    weights[:, :, 3] = [0.1, 0.5, 0.2, 0.1, 0.1]  # every head prefers animal
    weights[0, 1, 3] = [0.1, animal, street, 0.1, 0.8 - animal - street]
    return ModelAttention(labels, weights, merged=True)


PAIR = RealAttentionParams(
    "animal street it",
    "it",
    compare="animal street it",
    between=("animal", "street"),
    layer=1,
    head=2,
)


def test_the_pair_shows_one_head_in_both_sentences_and_says_what_it_measures() -> None:
    kept = real_attention_lines(PAIR, pair_attention(0.6, 0.1), compare=pair_attention(0.3, 0.2))
    rows = [line.split() for line in kept]
    assert ["animal", "0.60", "0.30"] in rows and ["street", "0.10", "0.20"] in rows
    assert "This head prefers 'animal' in both." in kept
    # the measure is named before any count of it
    assert kept[-6:] == [
        "A head's preference: its weight on 'animal'",
        "minus its weight on 'street'. Over all 6 heads:",
        # 0.5 then 0.1: moved 0.4 towards street, without changing sides
        "1 head moves it towards 'street' by more than 0.1",
        "(the most: layer 1 head 2, 0.50 to 0.10);",
        "no head moves it towards 'animal' by more than 0.1;",
        "no head changes sides by more than 0.1 (none changes at all).",
    ]
    flipped = real_attention_lines(PAIR, pair_attention(0.6, 0.1), compare=pair_attention(0.1, 0.5))
    assert "This head prefers 'animal', then 'street'." in flipped
    # 0.5 for animal, then 0.4 for street: moved by 0.9, changed sides by the smaller, 0.4
    assert flipped[-5:] == [
        "1 head moves it towards 'street' by more than 0.1",
        "(the most: layer 1 head 2, 0.50 to -0.40);",
        "no head moves it towards 'animal' by more than 0.1;",
        "1 head changes sides by more than 0.1",
        "(the most: 0.40, layer 1 head 2).",
    ]
    back = real_attention_lines(PAIR, pair_attention(0.1, 0.5), compare=pair_attention(0.6, 0.1))
    assert "2 heads move" not in " ".join(back)  # the other five keep theirs exactly
    assert back[-4].startswith("1 head moves it towards 'animal'")


def test_a_pair_word_missing_from_either_sentence_is_a_block_error() -> None:
    with pytest.raises(BlockError, match="'street' is not a word of 'animal it'"):
        real_attention_lines(replace(PAIR, compare="animal it"), None)
