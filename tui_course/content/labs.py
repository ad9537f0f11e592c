"""The labs every course has: screens built into the app rather than written as content."""

from __future__ import annotations

from tui_course.content.models import Lab

BUILTIN_LABS = (
    Lab(
        "attention-lab",
        "Attention lab",
        after="queries-keys-values",
        summary="Type a sentence and watch every word attend to the others",
    ),
    Lab(
        "real-model-lab",
        "Real model",
        after="transformers-to-llms",
        summary="A pretrained Transformer's 6x12 heads on any sentence you type",
    ),
    Lab(
        "pe-lab",
        "Positional-encoding lab",
        after="positional-encoding",
        summary="Explore sinusoidal position vectors and how alike positions are",
    ),
    Lab(
        "training-lab",
        "Training lab",
        after="digit-lab",
        summary="Train the digit task live: Transformer, no positions, RNN or LSTM",
    ),
)
