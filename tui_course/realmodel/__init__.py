"""The pretrained model of lessons 2 and 4 and the Real-model lab, as one package.

- `loading`: finding, checking and loading the weights and the tokenizer (the `real`
  extra's imports stay inside its functions), and running the NumPy encoder;
- `service`: what the app, plain mode and the CLI call: one forward pass, with every
  failure turned into the one line a student can act on (`attend_or_problem`).

The names most callers need are here too; tests patch them in `loading`, where they live.
"""

from tui_course.realmodel.loading import (
    KNOWN_MODEL,
    ModelError,
    RealAttention,
    RealModel,
    find_model,
    load_model,
    real_extra_missing,
)

__all__ = [
    "KNOWN_MODEL",
    "ModelError",
    "RealAttention",
    "RealModel",
    "find_model",
    "load_model",
    "real_extra_missing",
]
