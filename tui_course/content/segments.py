"""A lesson's parts as plain data: prose, live blocks and runnable listings.

Apart from content.models: a lesson's segments are found when it is first shown
(Lesson.segments), so a start that shows a quiz defines none of these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_course.content.blocks.base import BlockParams


@dataclass(frozen=True)
class MarkdownSegment:
    text: str


@dataclass(frozen=True)
class BlockSegment:
    """A fenced block the lesson view turns into a live piece (see content.blocks): its
    kind's name and its params, of that kind's dataclass."""

    name: str
    params: BlockParams
    line: int


class ListingRunner(StrEnum):
    NUMPY = "numpy"  # the code sandbox: NumPy only
    KERAS = "keras"  # a child of the train extra's environment (Keras, TensorFlow)


@dataclass(frozen=True)
class ListingSegment:
    """A Python listing the student can run and edit (a ```python run``` fence)."""

    code: str
    line: int  # the fence's line (1-based); the code starts on the next
    runner: ListingRunner = ListingRunner.NUMPY


Segment = MarkdownSegment | BlockSegment | ListingSegment
