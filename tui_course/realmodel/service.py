"""One forward pass of the pretrained model for the app, plain mode and the CLI: loaded
once per process, and every way it can fail said in one line (a missing extra, no
weights, a damaged file, too little memory), never a traceback and never a figure left
"computing" for ever."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_course.realmodel.attention import ModelAttention
    from tui_course.realmodel.loading import RealAttention


def run_real_model(
    sentence: str, cache_dir: Path | None = None, model_dir: str | Path | None = None
) -> RealAttention | str:
    """The model's attention for `sentence`, or why it cannot be had (one line)."""
    from tui_course.realmodel import loading

    try:
        return loading.load_model(model_dir, cache_dir).attend(sentence)
    except loading.ModelError as error:
        return str(error)
    except (OSError, MemoryError, ValueError) as error:
        failed = f"the model could not run ({type(error).__name__}: {error})"
        return str(loading.ModelError(failed))


def attend_or_problem(
    sentence: str,
    cache_dir: Path | None = None,
    merge: bool = True,
    model_dir: str | Path | None = None,
) -> ModelAttention | str:
    """The model's weights over whole words (`merge`) or word pieces, as every figure and
    lab shows them, or the one line that says why not."""
    from tui_course.realmodel.attention import attention_of

    outcome = run_real_model(sentence, cache_dir, model_dir)
    return outcome if isinstance(outcome, str) else attention_of(outcome, merge)
