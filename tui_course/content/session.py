"""One pass through a quiz: which question is showing, first-try results, hints used.

Kept free of UI so the rules (what counts as a score, what "missed" means) are
tested directly and the quiz screen only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_course.content.grading import Verdict, grade
from tui_course.content.models import Question, Quiz


@dataclass
class QuizSession:
    """The score is the number of questions right on the first try in this run;
    retries are recorded but do not raise it."""

    quiz: Quiz
    questions: tuple[Question, ...]  # the quiz's questions with numeric keys resolved
    order: tuple[int, ...]  # 0-based indexes of the questions asked in this run
    position: int = 0
    finished: bool = False
    first_try: dict[int, bool] = field(default_factory=dict)
    hints_shown: dict[int, int] = field(default_factory=dict)

    @classmethod
    def start(cls, quiz: Quiz, questions: tuple[Question, ...]) -> QuizSession:
        return cls(quiz, questions, tuple(range(len(questions))))

    @property
    def index(self) -> int:
        return self.order[self.position]

    @property
    def question(self) -> Question:
        return self.questions[self.index]

    @property
    def number(self) -> int:
        """1-based number of the current question within the whole quiz."""
        return self.index + 1

    @property
    def is_full_run(self) -> bool:
        return len(self.order) == len(self.questions)

    def check(self, raw: str) -> Verdict:
        """Grade the current question without counting it; raises AnswerFormatError."""
        return grade(self.question, raw)

    def count(self, verdict: Verdict) -> None:
        """Count a verdict once it is saved; only the first one per question scores."""
        self.first_try.setdefault(self.index, verdict.correct)

    def hints(self) -> tuple[str, ...]:
        """The hints revealed so far for the current question."""
        return self.question.hints[: self.hints_shown.get(self.index, 0)]

    def reveal_hint(self) -> str | None:
        shown = self.hints_shown.get(self.index, 0)
        if shown >= len(self.question.hints):
            return None
        self.hints_shown[self.index] = shown + 1
        return self.question.hints[shown]

    def advance(self) -> None:
        if self.position + 1 < len(self.order):
            self.position += 1
        else:
            self.finished = True

    @property
    def correct_count(self) -> int:
        return sum(1 for index in self.order if self.first_try.get(index, False))

    @property
    def missed(self) -> tuple[int, ...]:
        """Questions not right on the first try, skipped ones included."""
        return tuple(index for index in self.order if not self.first_try.get(index, False))

    def retry_missed(self) -> QuizSession:
        return QuizSession(self.quiz, self.questions, self.missed)
