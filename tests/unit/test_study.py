"""The app's session bookkeeping without the app: answer keys, the passes they open, the outbox."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from tui_course.content.course import load_course
from tui_course.content.models import Course
from tui_course.content.session import PassKind, Phase
from tui_course.progress.store import ProgressStore
from tui_course.study import AnswerKeys, Outbox

QUIZ = (
    'id = "q"\ntitle = "Q"\n\n'
    '[[question]]\nkind = "choice"\nprompt = "Pick"\noptions = ["a", "b", "c"]\nanswer = 2\n'
    'explanation = "b"\n\n'
    '[[question]]\nkind = "numeric"\nprompt = "Half"\nanswer = 0.5\ntolerance = 0.01\n'
    'explanation = "1/2"\n'
)


def course(root: Path) -> Course:
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "quizzes" / "q.toml").write_text(QUIZ, encoding="utf-8")
    return load_course(root)


def test_keys_are_computed_once_and_open_a_first_pass(tmp_path: Path) -> None:
    keys = AnswerKeys(course(tmp_path / "course"))

    async def twice() -> bool:
        first = await keys.ready()
        return first is await keys.ready()

    assert asyncio.run(twice())
    quiz = keys.course.quizzes[0]
    with ProgressStore(tmp_path / "data") as store:
        session = keys.first_pass(store, quiz)
        assert (session.phase, session.kind, len(session.order)) == (Phase.INTRO, PassKind.FIRST, 2)
        assert keys.review_pass(store, datetime.now(UTC)) is None  # nothing ever missed


def test_the_outbox_keeps_what_could_not_be_read_until_it_is_sent() -> None:
    outbox = Outbox()
    assert outbox.with_owed(["b"]) == ["b"]
    outbox.unread(outbox.with_owed(["b"]))
    assert outbox.with_owed(["a"]) == ["a", "b"]
    outbox.sent()
    assert outbox.with_owed(["c"]) == ["c"]
