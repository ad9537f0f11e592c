"""What the app keeps for a student's session, free of Textual, so it is tested directly:
the quiz results owed to the class folder.
"""

from __future__ import annotations

from collections.abc import Sequence


class Outbox:
    """Finished quizzes whose results are owed to the class folder: those that could not
    be read from the store when they finished go with the next ones sent."""

    def __init__(self) -> None:
        self.owed: set[str] = set()

    def with_owed(self, quiz_ids: Sequence[str]) -> list[str]:
        """The quizzes to send now: these and every one still owed."""
        return sorted(self.owed | set(quiz_ids))

    def unread(self, quiz_ids: Sequence[str]) -> None:
        """Their results could not be read just now: they are owed."""
        self.owed = set(quiz_ids)

    def sent(self) -> None:
        self.owed = set()
