"""The course as plain frozen data: what the loaders produce and the UI reads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from tui_course.content.code_model import CodeSpec
from tui_course.content.errors import ContentError

if TYPE_CHECKING:
    from tui_course.content.segments import Segment


class Kind(StrEnum):
    CHOICE = "choice"
    MULTI = "multi"
    NUMERIC = "numeric"
    TEXT = "text"
    CODE = "code"  # the student writes a function; see content.code_model and content.code_parse
    ORDER = "order"  # lines to put in order (a Parsons problem); see content.kinds.order


# A kind's key, as its module in content/kinds reads and grades it: choice int (an option
# number), multi frozenset[int], numeric float | None (None: answer_from computes it),
# text tuple[str, ...] (accepted variants), order tuple[int, ...] (line numbers in the right
# order), code None (its CodeSpec). A bare Question is Question[Any]: what holds any kind.
Key = TypeVar("Key", default=Any)


@dataclass(frozen=True)
class Mistake(Generic[Key]):
    """A typical wrong answer (in the form of its kind's key) and the feedback aimed at it."""

    answer: Key  # numeric: None where NumericSpec.mistakes_from computes it
    feedback: str


@dataclass(frozen=True)
class NumericSpec:
    """A numeric question's own fields (content/kinds/numeric.py reads them from the
    question's table): where its key comes from and how close an answer must be."""

    answer_from: str | None = None  # an expression the app computes the key from
    tolerance: float = 0.0  # absolute
    rel_tolerance: float = 0.0  # relative to the key
    also_accepted: tuple[float, ...] = ()  # other readings graded right
    # each mistake's answer_from, in the question's order (empty: none is computed)
    mistakes_from: tuple[str | None, ...] = ()

    @property
    def exact(self) -> bool:
        """No margin given: the key is graded to float precision (grading.numbers_close)."""
        return self.tolerance == 0 and self.rel_tolerance == 0

    def margin(self, key: float) -> float:
        """The absolute margin around `key` (rel_tolerance folded in)."""
        return max(self.tolerance, self.rel_tolerance * abs(key))


EXACT = NumericSpec()  # a numeric question with no fields of its own: graded exactly


@dataclass(frozen=True)
class Question(Generic[Key]):
    kind: Kind
    prompt: str
    explanation: str
    line: int
    options: tuple[str, ...] = ()
    # The key, typed by the kind (see Key); None for a kind without one (code).
    answer: Key = None  # type: ignore[assignment]
    hints: tuple[str, ...] = ()
    mistakes: tuple[Mistake[Key], ...] = ()
    tries: int | None = None  # None: the quiz's setting
    numeric: NumericSpec | None = None  # numeric questions only
    code: CodeSpec | None = None  # code questions only

    @property
    def numeric_spec(self) -> NumericSpec:
        """A numeric question's fields; one built without them is graded exactly."""
        return self.numeric or EXACT


@dataclass(frozen=True)
class Quiz:
    id: str
    title: str
    path: str
    questions: tuple[Question, ...]
    after: str | None = None
    intro: str = ""
    tries: int | None = None  # None: DEFAULT_TRIES


DEFAULT_TRIES = 3
REVIEW_ID = "review"  # the outline entry, `attn-tui review`, and the review pass's quiz id


def _all_prose(lesson: Lesson) -> tuple[Segment, ...]:
    """The segments of a lesson made by hand, without the loader's block finder."""
    from tui_course.content.segments import MarkdownSegment

    return (MarkdownSegment("\n".join(lesson.lines[lesson.body_start :])),)


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    order: int
    path: str
    lines: tuple[str, ...]  # the whole file, so block errors can name their line
    body_start: int  # the first line after the front matter (0-based)
    summary: str = ""
    # How the loader (content.lessons) finds the prose and live blocks: given, not imported,
    # so this plain data does not depend on its parser.
    find_segments: Callable[[Lesson], tuple[Segment, ...]] = field(
        default=_all_prose, compare=False, repr=False
    )

    @cached_property
    def segments(self) -> tuple[Segment, ...]:
        """Prose and live blocks, found on first use: the parser (markdown-it) is not
        start-up work. Raises ContentError (path:line) for a broken block."""
        return self.find_segments(self)


def lessons_fingerprint(lessons: Sequence[Lesson]) -> str:
    """A digest of every lesson's text and of the app's version (its block parser's): lessons
    with the same digest have the same live blocks, so a check they passed need not run
    again. Here, beside the data, so a start that finds the check done imports no parser."""
    import hashlib

    from tui_course import __version__

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    for lesson in lessons:
        for part in (lesson.path, *lesson.lines):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Lab:
    """A built-in interactive screen, listed in the outline after the lesson it belongs to."""

    id: str
    title: str
    after: str
    summary: str


Item = Lesson | Quiz | Lab


@dataclass(frozen=True)
class Course:
    """Everything that loaded, plus every problem found on the way."""

    lessons: tuple[Lesson, ...]
    quizzes: tuple[Quiz, ...]
    problems: tuple[ContentError, ...] = field(default=())
    labs: tuple[Lab, ...] = ()

    def outline(self) -> list[Item]:
        """Lessons in order, each followed by its labs and then the quizzes placed after it."""
        items: list[Item] = []
        placed: set[str] = set()
        followers: tuple[Lab | Quiz, ...] = (*self.labs, *self.quizzes)
        for lesson in self.lessons:
            items.append(lesson)
            for follower in followers:
                if follower.after == lesson.id:
                    items.append(follower)
                    placed.add(follower.id)
        items.extend(item for item in followers if item.id not in placed)
        return items

    def find(self, item_id: str) -> Item | None:
        items: tuple[Item, ...] = (*self.lessons, *self.quizzes, *self.labs)
        for item in items:
            if item.id == item_id:
                return item
        return None
