"""A code question in plain mode: typed or pasted at the prompt (a student under
ForceCommand has no shell to make a file) or read from a file, checked by the same service
as the app's editor and `attn-tui check`, kept as the same draft and stored as the same
attempts."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO
from tests.plain.test_plain_course import Policy, check_lines, take
from tui_course.content.code_model import MAX_CODE_BYTES
from tui_course.content.course import load_course
from tui_course.progress.drafts import read_draft, write_draft
from tui_course.progress.store import ProgressStore

CODE_COURSE = FIXTURES / "code_course"
WRONG = ["import numpy as np", "", "", "def double(x):", "    return 3 * x"]


def scripted(lines: list[str]) -> Policy:
    """A policy typing `lines` in turn, then q at every prompt."""
    return lambda prompt, text: lines.pop(0) if lines else "q"


def verdicts(data: Path) -> list[tuple[int, str, int]]:
    with ProgressStore(data) as store:
        return [(r.question_index, r.verdict, r.try_number) for r in store.quiz_rows("code")]


def test_a_code_question_checked_from_a_file(tmp_path: Path) -> None:
    quiz = load_course(REPO).find("code")
    spec = quiz.questions[0].code  # type: ignore[union-attr]
    assert spec is not None
    (tmp_path / "starter.py").write_text(spec.starter)
    (tmp_path / "good.py").write_text(spec.solution)
    script = [
        "",
        "starter",
        "check missing.py",
        f"check {tmp_path / 'starter.py'}",
        f"check {tmp_path / 'starter.py'}",  # the same code again: no new try
        f"check {tmp_path / 'good.py'}",
        "",
        "q",
    ]
    code, text, _ = take(
        tmp_path / "data", lambda p, t: script.pop(0) if script else "q", REPO, open_id="code"
    )
    check_lines(text)
    assert code == 0
    assert "Starter code:" in text and f"def {spec.entry}(" in text
    assert "missing.py: cannot read it (No such file or directory)." in text
    assert "You checked this code already" in text
    assert "PASSED" in text and "Correct." in text
    with ProgressStore(tmp_path / "data") as store:
        rows = store.quiz_rows("code")
    assert [(r.question_index, r.verdict, r.try_number) for r in rows] == [
        (1, "wrong", 1),
        (1, "right", 2),
    ]


def test_code_typed_at_the_prompt_is_kept_shown_fixed_and_checked(tmp_path: Path) -> None:
    """Typed lines until a full stop become the draft (the app's and `check ID`'s file);
    read says it with numbers, line N types one line again, check runs the sandbox."""
    script = ["", "code", *WRONG, ".", "read", "check", "line 5", "    return 2 * x", "check", ""]
    code, text, _ = take(tmp_path, scripted(script), content=CODE_COURSE, open_id="code")
    check_lines(text)
    assert code == 0
    flat = " ".join(text.split())
    assert "Your code starts as the starter code, 5 lines." in flat
    assert "Kept as your draft: 5 lines." in flat
    assert (
        "1: import numpy as np\n2: (blank)\n3: (blank)\n4: def double(x):\n5:     return 3 * x\n"
        in text
    )
    assert "That is three times x: twice is 2 * x." in flat  # the declared mistake's words
    assert "Line 5 is now: return 3 * x" in flat
    assert "PASSED" in text and "Correct." in text
    assert "A model solution:" in text
    assert read_draft(tmp_path, "code", 1) == "\n".join([*WRONG[:4], "    return 2 * x"]) + "\n"
    assert verdicts(tmp_path) == [(1, "wrong", 1), (1, "right", 2)]


def test_no_word_is_obeyed_inside_the_code(tmp_path: Path) -> None:
    """q, n, s, h, ? and 'check' typed as lines of code are code, not commands; tabs and
    leading spaces stay as typed."""
    body = ["q", "n", "s", "h", "?", "check", "\tx = 1", "   ", "  ."]  # '  .' ends it too
    script = ["", "code", *body, "read", ""]
    code, text, _ = take(tmp_path, scripted(script), content=CODE_COURSE, open_id="code")
    assert code == 0
    assert read_draft(tmp_path, "code", 1) == "q\nn\ns\nh\n?\ncheck\n\tx = 1\n   \n"
    assert "Kept as your draft: 8 lines." in " ".join(text.split())
    assert "8: (blank)" in text
    assert verdicts(tmp_path) == []  # nothing was checked, skipped or revealed


def test_code_over_the_limit_is_refused_and_the_draft_kept(tmp_path: Path) -> None:
    write_draft(tmp_path, "code", 1, "def double(x):\n    return x\n")
    line = "# " + "x" * 998
    many = [line] * (MAX_CODE_BYTES // 1000 + 2)
    script = ["", "code", *many, ".", "line 9", "read", ""]
    code, text, driver = take(tmp_path, scripted(script), content=CODE_COURSE, open_id="code")
    assert code == 0
    text = " ".join(text.split())
    assert "You have a saved draft of 2 lines." in text
    assert "That code is over 20 KB, the most a check takes; your draft is as it was." in text
    assert "Your code has 2 lines; type line 1 to line 3." in text
    assert read_draft(tmp_path, "code", 1) == "def double(x):\n    return x\n"
    assert "q" in driver.typed[-1]  # every line of the long paste read, none taken as a word


def test_input_ending_mid_code_keeps_the_saved_draft(tmp_path: Path) -> None:
    """A dropped connection while lines are typed: the draft on disk is the last whole one."""
    write_draft(tmp_path, "code", 1, "def double(x):\n    return x\n")
    script = ["", "code", "def double(x):", "    return 2 * x"]  # no full stop: input ends
    code, text, _ = take(tmp_path, scripted(script), CODE_COURSE, open_id="code", limit=4)
    assert code == 0 and "Type or paste your code." in text
    assert read_draft(tmp_path, "code", 1) == "def double(x):\n    return x\n"
    assert verdicts(tmp_path) == []


@pytest.mark.parametrize("kind", ["zero", "fifo", "folder"])
def test_check_file_refuses_what_is_not_a_file_of_code(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/dev/zero, a FIFO nobody writes and a folder: one line each, no hang, no memory."""
    monkeypatch.chdir(tmp_path)
    target = {"zero": "/dev/zero", "fifo": "pipe", "folder": "."}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    said = {
        "zero": "is not a regular file (a device, a FIFO or a socket).",
        "fifo": "is not a regular file (a device, a FIFO or a socket).",
        "folder": "is a folder, not a file of code.",
    }[kind]
    script = ["", f"check {target}", ""]
    done = threading.Event()
    result: list[str] = []

    def run() -> None:
        result.append(take(tmp_path / "data", scripted(script), CODE_COURSE, open_id="code")[1])
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(60), "plain mode hung on the file"
    assert f"{target}: {said}" in " ".join(result[0].split())
