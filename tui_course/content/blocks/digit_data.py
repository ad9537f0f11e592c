"""```digit-data```: the training lab's data made by its own generator, and its share of
"same" rows (text only)."""

from __future__ import annotations

from dataclasses import dataclass

from tui_course import specs
from tui_course.content.blocks.base import BlockKind, BlockParams, spec_key


@dataclass(frozen=True)
class DigitDataParams(BlockParams):
    seed: int = spec_key(specs.SEED)
    train: int = spec_key(specs.TRAIN_SIZE)
    test: int = spec_key(specs.TEST_SIZE)
    length: int = spec_key(specs.LENGTH)


class DigitData(BlockKind[DigitDataParams]):
    name = "digit-data"
    params = DigitDataParams
    text = "tui_course.render.blocks:digit_data_text"


KIND = DigitData()
