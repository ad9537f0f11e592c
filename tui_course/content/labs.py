"""The labs every course has, registered here: screens built into the app rather than
written as content.

Each entry is all a lab is: its id, title, place in the outline and summary (the Lab the
outline shows), its plain-mode command loop and its screen in the app. Those two live in
the layers that may run them (plain/labs.py, ui/widgets/labs.py) and are named here by
"module:function" (content.named resolves them), so this layer imports neither. Adding a
lab is one entry below, its plain runner and its widget factory.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_course.content.models import Lab


@dataclass(frozen=True)
class LabKind:
    lab: Lab
    # Plain mode's command loop: (host: plain.labs.LabHost) -> None.
    plain: str
    # The app's screen: (needs: ui.widgets.labs.LabNeeds, id: str | None) -> Widget.
    widget: str


LABS = (
    LabKind(
        Lab(
            "attention-lab",
            "Attention lab",
            after="queries-keys-values",
            summary="Type a sentence and watch every word attend to the others",
        ),
        plain="tui_course.plain.labs:attention_lab",
        widget="tui_course.ui.widgets.labs:attention_lab",
    ),
    LabKind(
        Lab(
            "real-model-lab",
            "Real model",
            after="transformers-to-llms",
            summary="A pretrained Transformer's 6x12 heads on any sentence you type",
        ),
        plain="tui_course.plain.labs:real_model_lab",
        widget="tui_course.ui.widgets.labs:real_model_lab",
    ),
    LabKind(
        Lab(
            "pe-lab",
            "Positional-encoding lab",
            after="positional-encoding",
            summary="Explore sinusoidal position vectors and how alike positions are",
        ),
        plain="tui_course.plain.labs:pe_lab",
        widget="tui_course.ui.widgets.labs:pe_lab",
    ),
    LabKind(
        Lab(
            "training-lab",
            "Training lab",
            after="digit-lab",
            summary="Train the digit task live: Transformer, no positions, RNN or LSTM",
        ),
        plain="tui_course.plain.labs:training_lab",
        widget="tui_course.ui.widgets.labs:training_lab",
    ),
)

BUILTIN_LABS = tuple(kind.lab for kind in LABS)
_BY_ID = {kind.lab.id: kind for kind in LABS}


def lab_kind(lab_id: str) -> LabKind:
    """The registered lab with this id; ValueError naming it when there is none."""
    found = _BY_ID.get(lab_id)
    if found is None:
        raise ValueError(f"no lab called {lab_id} (labs: {', '.join(_BY_ID)})")
    return found
