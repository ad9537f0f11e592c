"""The code-exercise and listing states, their loader and their drafts: rules in milliseconds."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui_course.content.code_model import CodeAttempt
from tui_course.content.errors import ContentError
from tui_course.content.lessons import load_lesson
from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.segments import ListingRunner, ListingSegment, MarkdownSegment
from tui_course.content.session import Phase, QuizSession
from tui_course.listings.run import ListingOutcome, ListingResult
from tui_course.paths import LinkRefused
from tui_course.progress.drafts import (
    DraftTooLarge,
    draft_path,
    read_draft,
    write_draft,
)
from tui_course.render import quiz as render_quiz
from tui_course.render.code_exercise import solution_text, status_text
from tui_course.render.listing import listing_text, shown_lines
from tui_course.runtime.shell_access import shell_access
from tui_course.views.code_exercise import RESET_QUESTION, CodeExercise, CodePhase
from tui_course.views.listing import ListingState
from tui_course.views.quiz import QuizRun

STARTER = "def f(x):\n    raise NotImplementedError\n"
SOLUTION = "def f(x):\n    return x\n"


@dataclass(frozen=True)
class Verdict:
    passed: bool


def opened(draft: str | None = None) -> CodeExercise:
    return CodeExercise.open(STARTER, SOLUTION, draft)


# the exercise


def test_a_saved_draft_wins_over_the_starter_and_counts_as_saved() -> None:
    assert opened().draft == STARTER
    state = opened("def f(x):\n    return 1\n")
    assert state.draft.endswith("return 1\n")
    assert not state.unsaved
    assert state.typed(state.draft + "#").unsaved


def test_a_check_is_numbered_and_a_late_result_of_an_older_one_is_dropped() -> None:
    state = opened().typed(SOLUTION)
    state, first = state.check_started()
    assert first == 1 and state.phase is CodePhase.CHECKING
    again, none = state.check_started()
    assert none is None and "running already" in again.notice
    stale = state.check_finished(7, SOLUTION, Verdict(True))
    assert stale is state  # not the check under way
    done = state.check_finished(1, SOLUTION, Verdict(True))
    assert done.phase is CodePhase.EDITING and done.verdict == Verdict(True)
    assert not done.verdict_is_stale
    edited = done.typed(SOLUTION + "\n# more")
    assert edited.verdict_is_stale
    assert "before your last edits" in status_text(edited)


def test_typing_goes_on_while_a_check_runs() -> None:
    state, number = opened().typed("a").check_started()
    assert number is not None
    state = state.typed("ab")
    assert state.phase is CodePhase.CHECKING and state.draft == "ab"
    state = state.check_finished(number, "a", Verdict(False))
    assert state.checked_code == "a" and state.verdict_is_stale


def test_nothing_to_check_and_too_long_are_said_not_run() -> None:
    state, number = opened("  \n").check_started()
    assert number is None and "no code" in state.notice
    state, number = opened("x" * (21 * 1024)).check_started()
    assert number is None and "20 KB" in state.notice


def test_reset_asks_first_and_any_edit_keeps_the_draft() -> None:
    mine = opened().typed("def f(x):\n    return 2\n")
    asked = mine.ask_reset()
    assert asked.confirming_reset and asked.notice == RESET_QUESTION
    assert asked.draft == mine.draft
    kept = asked.typed(mine.draft + "#")
    assert not kept.confirming_reset and kept.draft.endswith("#")
    reset = asked.ask_reset()
    assert reset.draft == STARTER and not reset.confirming_reset
    assert "already" in opened().ask_reset().notice


def test_the_solution_shows_only_once_the_question_is_closed() -> None:
    state = opened()
    assert not state.solution_visible and solution_text(state) == ""
    assert "return x" in solution_text(state.close(passed=True))
    revealed = state.close(passed=False)
    assert revealed.phase is CodePhase.REVEALED and "return x" in solution_text(revealed)
    assert CodeExercise.open(STARTER, "", None).close(True).solution_visible is False


def test_a_failed_save_is_said_and_a_later_save_clears_it() -> None:
    state = opened().typed("x = 1").save_failed("No space left on device")
    assert "could not be saved" in state.notice and state.unsaved
    state = state.saved("x = 1")
    assert state.notice == "" and not state.unsaved


# drafts on disk


def test_a_draft_is_written_whole_0600_and_read_back(tmp_path: Path) -> None:
    path = write_draft(tmp_path, "code", 2, "def f():\n    return 'é'\n")
    assert path == draft_path(tmp_path, "code", 2)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_draft(tmp_path, "code", 2) == "def f():\n    return 'é'\n"
    write_draft(tmp_path, "code", 2, "second")
    assert read_draft(tmp_path, "code", 2) == "second"
    assert sorted(p.name for p in path.parent.iterdir()) == ["code-2.py"]  # no temp left
    assert read_draft(tmp_path, "code", 3) is None


def test_a_link_where_a_draft_goes_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    folder = tmp_path / "data" / "code"
    folder.mkdir(parents=True)
    (folder / "code-1.py").symlink_to(victim)
    with pytest.raises(LinkRefused):
        read_draft(tmp_path / "data", "code", 1)
    write_draft(tmp_path / "data", "code", 1, "mine")
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert not (folder / "code-1.py").is_symlink()


def test_a_linked_drafts_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "code").symlink_to(elsewhere)
    with pytest.raises(LinkRefused):
        write_draft(tmp_path / "data", "code", 1, "mine")
    assert list(elsewhere.iterdir()) == []


def test_a_huge_draft_is_refused_and_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    with pytest.raises(DraftTooLarge):
        write_draft(tmp_path, "code", 1, "x" * (65 * 1024))
    folder = tmp_path / "code"
    folder.mkdir(exist_ok=True)
    os.mkfifo(folder / "code-1.py")
    assert read_draft(tmp_path, "code", 1) is None


# who may open $EDITOR


def test_no_editor_under_a_forced_command_or_on_a_class_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(config))
    assert shell_access({}).allowed
    assert not shell_access({"SSH_ORIGINAL_COMMAND": "attn-tui"}).allowed
    classes = tmp_path / "class"
    classes.mkdir()
    config.write_text(f'class_dir = "{classes}"\n', encoding="utf-8")
    denied = shell_access({})
    assert not denied.allowed and "class server" in denied.reason
    config.write_text(f'class_dir = "{classes}"\nstudent_shell = true\n', encoding="utf-8")
    assert shell_access({}).allowed
    config.write_text("student_shell = 3\n", encoding="utf-8")
    assert not shell_access({}).allowed  # a broken config is no permission


# listings in lessons

FRONT = '+++\nid = "l"\ntitle = "t"\norder = 1\n+++\n'  # lines 1-5


def lesson(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "l.md"
    path.write_text(FRONT + body, encoding="utf-8")
    return path


def test_a_runnable_listing_splits_the_prose_and_keeps_its_line(tmp_path: Path) -> None:
    body = "\nbefore\n\n```python run\nprint(1)\n```\n\n```python\nplain = 1\n```\n"
    loaded = load_lesson(lesson(tmp_path, body))
    first, listing, after = loaded.segments
    assert isinstance(first, MarkdownSegment) and first.text == "before"
    assert listing == ListingSegment("print(1)\n", 9, ListingRunner.NUMPY)
    assert isinstance(after, MarkdownSegment) and "plain = 1" in after.text  # stays prose
    keras = load_lesson(lesson(tmp_path, "\n```python run keras\nimport keras\n```\n"))
    assert keras.segments == (ListingSegment("import keras\n", 7, ListingRunner.KERAS),)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("\n```python rnu\nx = 1\n```\n", "l.md:7: python fence: unknown options 'rnu'"),
        ("\n```python run\nx = (1\ny = 2\n```\n", "l.md:8: python listing: '(' was never closed"),
        ("\n```python run\n\n\nimport keras\n```\n", "l.md:10: python listing imports keras"),
        ("\n- item\n\n  ```python run\n  x = 1\n  ```\n", "l.md:9: a runnable listing must start"),
        ("\n```python run\n\n```\n", "l.md:7: a runnable listing has no code"),
    ],
)
def test_a_broken_listing_is_a_content_error_at_its_line(
    tmp_path: Path, body: str, message: str
) -> None:
    with pytest.raises(ContentError) as caught:
        load_lesson(lesson(tmp_path, body), tmp_path)
    assert str(caught.value).startswith(message)


def test_a_listings_output_is_cleaned_capped_and_marked_stale() -> None:
    listing = ListingSegment("print(1)\n", 3)
    state, number = ListingState.of(listing).run_started()
    assert number == 1 and listing_text(state) == "Running..."
    noisy = "\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07hello\n" + "x" * 1000 + "\n" * 200
    result = ListingResult(ListingOutcome.RAN, stdout=noisy, stdout_cut=True, seconds=0.5)
    state = state.run_finished(number, listing.code, result)
    text = listing_text(state)
    assert "\x1b" not in text and "\x07" not in text
    assert "Ran in 0.50 s" in text and "hello" in text
    assert "cut: it printed more than the 64 KB kept" in text
    assert max(len(line) for line in text.splitlines()) <= 300
    edited = state.edit().typed("print(2)\n")
    assert "before your last changes" in listing_text(edited)
    assert edited.restored().draft == "print(1)"  # as shipped, without the last newline


def test_many_lines_are_cut_with_a_count() -> None:
    lines = shown_lines("\n".join(str(n) for n in range(500)), False)
    assert lines[-1] == "... (440 more lines not shown)" and len(lines) == 61


def test_a_keras_listing_without_a_shell_runs_but_does_not_edit() -> None:
    state = ListingState.of(ListingSegment("import keras\n", 3, ListingRunner.KERAS), False)
    refused = state.edit()
    assert not refused.editing and "outside the code sandbox" in refused.notice
    assert state.typed("import os") is state


# a code check as a quiz answer (the session's rule is content.session.code_answer)


def code_run() -> QuizRun:
    question = Question(
        kind=Kind.CODE, prompt="Write f", explanation="why", line=1, hints=("first", "second")
    )
    quiz = Quiz(id="code", title="Code", path="code.toml", questions=(question,))
    return QuizRun.of(QuizSession.start(quiz, quiz.questions)).begin()


def attempt(code: str, outcome: str) -> CodeAttempt:
    digest = hashlib.sha256(code.encode()).hexdigest()
    return CodeAttempt(code, digest, outcome, None, (), "bwrap", 0.1)


def test_a_failed_check_teaches_and_counts_checks_not_tries_and_a_pass_closes() -> None:
    run = code_run()
    graded = run.code_graded(attempt("def f(x):\n    return 3 * x\n", "failed"))
    assert not isinstance(graded, str)
    verdict, record = graded
    assert not record.final
    run = run.saved(record, verdict)
    assert render_quiz.verdict(run) == ("Not yet (1 check): fix it and check again.", "incorrect")
    assert "tries left" not in " ".join(render_quiz.keys(run))
    assert run.session.state.message == "first"  # the next hint teaches
    again = run.code_graded(attempt("def f(x):\n    return 3 * x\n", "failed"))
    assert isinstance(again, str) and "already" in again
    graded = run.code_graded(attempt("def f(x):\n    return 2 * x\n", "passed"))
    assert not isinstance(graded, str)
    run = run.saved(graded[1], graded[0])
    assert run.phase is Phase.CLOSED
    assert render_quiz.keys(run) == ["Esc, then Enter or Right: next question"]


def test_attn_tui_check_reads_the_draft_the_editor_saved(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from tui_course.cli import main

    data = tmp_path / "data"
    write_draft(data, "code", 1, "def attention_weights(Q, K):\n    return Q @ K.T\n")
    assert main(["check", "code/1", "--data-dir", str(data)]) == 1
    assert capsys.readouterr().out.startswith("NOT YET")


def test_opening_is_said_until_the_editor_is_ready_and_lost_keys_until_the_next_check() -> None:
    state = opened()
    assert state.opening
    assert status_text(state) == (
        "Opening the editor\u2026 wait for it: keys pressed before it opens are not typed."
    )
    assert status_text(state, ascii_only=True).startswith("Opening the editor... wait")
    ready = state.keys_not_typed(1).editor_ready()
    assert not ready.opening
    assert status_text(ready) == "The editor was still opening: 1 key pressed then was not typed."
    typed = ready.keys_not_typed(3).typed("x = 1\n")
    assert status_text(typed) == "The editor was still opening: 3 keys pressed then were not typed."
    checking, _ = typed.check_started()
    assert "not typed" not in status_text(checking)
