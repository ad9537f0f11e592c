"""A code question in plain mode takes h, v and s as every other question does (the TUI
offers a hint, the solution and a skip on a code question too)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES
from tests.plain.test_plain_course import take
from tui_course.progress.store import ProgressStore

CODE_COURSE = FIXTURES / "code_course"


def test_hint_then_reveal_shows_the_solution_and_is_stored(tmp_path: Path) -> None:
    script = ["", "h", "v", ""]

    def policy(prompt: str, text: str) -> str:
        return script.pop(0) if script else "q"

    code, text, _ = take(tmp_path, policy, content=CODE_COURSE, open_id="code")
    assert code == 0
    flat = " ".join(text.split())
    assert "Hint 1 of 2: Multiply by 2." in flat
    assert "Answer shown (recorded as revealed)." in flat
    assert "return 2 * x" in text  # the model solution, once revealed
    assert "Type check and the file's name" not in text
    with ProgressStore(tmp_path) as store:
        rows = store.quiz_rows("code")
        assert [(r.question_index, r.verdict, r.hints_seen, r.revealed) for r in rows] == [
            (1, "revealed", 1, True)
        ]


def test_skip_moves_on_and_is_stored(tmp_path: Path) -> None:
    script = ["", "s"]

    def policy(prompt: str, text: str) -> str:
        return script.pop(0) if script else "q"

    code, text, _ = take(tmp_path, policy, content=CODE_COURSE, open_id="code")
    assert code == 0 and "Skipped." in text
    with ProgressStore(tmp_path) as store:
        assert [r.verdict for r in store.quiz_rows("code")] == ["skipped"]
