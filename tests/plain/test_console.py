"""The line layer of plain mode: wrapping, ASCII, prompts, and reading stdin's state."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from tui_course.plain.console import MAX_LINE_CHARS, Command, Console, Gone, to_ascii, wrap
from tui_course.plain.start import nothing_to_read, wants_plain
from tui_course.render.spoken import weights_in_words

LINES = [
    "",
    "short",
    "x" * 200,
    "  - a list item whose words go on long enough to need three lines at this width",
    "12. an ordered item " + "word " * 30,
    "中文字符" * 30,
    "mixed 中文 and ascii " * 10,
    "    indented code line that is far too long for the room it has here, really",
    "a " + "y" * 45 + " b",
]


@pytest.mark.parametrize("width", [20, 21, 37, 80])
@pytest.mark.parametrize("line", LINES)
def test_wrap_never_exceeds_the_width_and_keeps_every_word(line: str, width: int) -> None:
    lines = wrap(line, width)
    assert all(cell_len(part) <= width for part in lines)
    assert "".join("".join(lines).split()) == "".join(line.split())


def test_a_list_item_hangs_under_its_text() -> None:
    assert wrap("- first second third fourth", 14) == ["- first second", "  third fourth"]


def test_ascii_spells_symbols_and_names_letters() -> None:
    text = to_ascii(
        "softmax \u2192 weights \u2014 d\u00b2, \u03b1 \u2248 0.5, caf\u00e9, \u2588\u2588\u258c"
    )
    assert text == "softmax -> weights - d^2, alpha ~ 0.5, cafe, ###"
    assert text.isascii()


def test_output_is_cleaned_wrapped_and_gone_on_a_closed_pipe() -> None:
    sink = io.StringIO()
    console = Console(io.StringIO(), sink, width=20)
    console.say("\x1b]0;owned\x07title\x1b[2J with a long tail of words")
    assert "\x1b" not in sink.getvalue() and "\x07" not in sink.getvalue()
    assert all(len(line) <= 20 for line in sink.getvalue().split("\n"))

    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    with pytest.raises(Gone):
        Console(io.StringIO(), Closed()).say("hello")


def test_prompts_read_lines_and_end_of_input_is_gone() -> None:
    sink = io.StringIO()
    console = Console(io.StringIO("first\n\x1b[31mred\n"), sink, width=40, echo=True)
    assert console.ask("Name") == "first"
    assert console.ask("Colour") == "[31mred"  # the escape byte never comes back
    with pytest.raises(Gone):
        console.ask("More")
    assert sink.getvalue().split("\n")[:2] == ["Name> first", "Colour> [31mred"]


def test_pages_stop_for_the_prompt_and_words_leave() -> None:
    sink = io.StringIO()
    console = Console(io.StringIO("\nn\n"), sink, width=40, height=5)
    with pytest.raises(Command) as left:
        console.page([f"line {n}" for n in range(20)], {"n": "next"})
    assert left.value.word == "next"
    assert sink.getvalue().count("Enter: more") == 2
    assert "line 7" in sink.getvalue() and "line 8" not in sink.getvalue()


def test_weights_in_words_name_repeated_words_by_place() -> None:
    said = weights_in_words([0.5, 0.3, 0.2], ["the", "cat", "the"], 1)
    expected = "cat attends most to the (word 1), 50 %, then cat, 30 %, then the (word 3), 20 %."
    assert said == expected.replace(" %", "\u00a0%")


def test_modes_from_the_streams_and_term() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not wants_plain({"TERM": "xterm"}, Tty(), Tty())
    assert wants_plain({"TERM": "dumb"}, Tty(), Tty())
    assert wants_plain({}, Tty(), Tty())
    assert wants_plain({"TERM": "xterm"}, io.StringIO(), Tty())
    assert wants_plain({"TERM": "xterm"}, Tty(), io.StringIO())


def test_nothing_to_read_looks_without_taking(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    with empty.open() as handle:
        assert nothing_to_read(handle)
    with open(os.devnull) as handle:
        assert nothing_to_read(handle)
    script = (
        "import sys\n"
        "from tui_course.plain.start import nothing_to_read\n"
        "import select; select.select([0], [], [], 10)\n"
        "print(nothing_to_read(sys.stdin), repr(sys.stdin.readline()))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], input=b"a line\n", capture_output=True, check=True
    )
    assert result.stdout.decode().strip() == "False 'a line\\n'"  # the line is still there


class EndlessLine(io.TextIOBase):
    """A line that never ends (`head -c 400M /dev/zero | tr` over ssh -T), in pieces of the
    size asked for, then a newline and one more line; records each size asked."""

    def __init__(self, pieces: int) -> None:
        self.pieces = pieces
        self.asked: list[int] = []
        self.after = ["\n", "q\n"]

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.asked.append(-1 if size is None else size)
        if self.pieces:
            self.pieces -= 1
            return "a" * (size if size and size > 0 else 10**6)
        return self.after.pop(0) if self.after else ""


def test_a_line_without_end_is_read_in_bounded_pieces_and_cut() -> None:
    source = EndlessLine(pieces=200)  # 200 pieces of 64 KB: 12.5 MB never held at once
    console = Console(source, io.StringIO())  # type: ignore[arg-type]
    line = console.ask("Answer")
    assert len(line) == MAX_LINE_CHARS and set(line) == {"a"}
    assert source.asked and all(0 < size <= MAX_LINE_CHARS for size in source.asked)
    assert console.ask("Next") == "q"  # the rest of the long line was dropped, not read as lines


def test_the_real_stdin_wrapper_honours_the_piece_size() -> None:
    stream = io.TextIOWrapper(io.BytesIO(b"b" * (3 * MAX_LINE_CHARS) + b"\nq\n"), "utf-8")
    console = Console(stream, io.StringIO())
    assert console.ask("Answer") == "b" * MAX_LINE_CHARS
    assert console.ask("Next") == "q"
