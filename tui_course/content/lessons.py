"""Load Markdown lessons: TOML front matter between +++ lines, then the text.

Fenced blocks whose name is a known block (content.blocks) become live pieces;
fences in a known code language stay code; any other fence name is an error,
so a typo such as ```attentoin is caught instead of shown as code. Fences are
found by markdown-it, the parser family the lesson view renders with.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from tui_course.content.errors import ContentError, display_path
from tui_course.content.models import Lesson
from tui_course.content.segments import (
    BlockSegment,
    ListingRunner,
    ListingSegment,
    MarkdownSegment,
    Segment,
)
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field, TableCheck, TomlLines, parse_toml, read_text
from tui_course.text.safe import one_line

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

CODE_LANGUAGES = frozenset(
    {"", "python", "py", "text", "console", "bash", "sh", "toml", "json", "markdown", "md"}
)
PYTHON_FENCES = frozenset({"python", "py"})
# A runnable listing's fence: ```python run``` (NumPy, in the code sandbox) or
# ```python run keras``` (Keras, in a child of the train extra's environment).
LISTING_OPTIONS = {("run",): ListingRunner.NUMPY, ("run", "keras"): ListingRunner.KERAS}
MAX_LISTING_CHARS = 20_000  # what an attempt keeps of a student's code; listings are far smaller
# What a NumPy listing cannot import: its sandbox has NumPy and the standard library only.
_NOT_IN_THE_SANDBOX = frozenset({"keras", "tensorflow", "tui_course", "torch"})
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # \Z: `$` also matches before a final newline

MAX_LESSON_BYTES = 256 * 1024  # 50 times the longest shipped lesson; more froze the view
# Textual's Markdown makes a widget per block (paragraph, list item, table cell...), a few
# hundred a second: 2,000 one-line list items (8 KB) froze the app for 24 s, an 80 x 80
# table for 11 s. The longest shipped lesson has 48 blocks.
MAX_MARKDOWN_BLOCKS = 400
_SINGLE_BLOCKS = frozenset({"fence", "code_block", "hr", "html_block"})

FRONT_MATTER_FIELDS = {
    "id": Field((str,), "a lesson id (lowercase letters, digits, dashes)", required=True),
    "title": Field((str,), "a string", required=True),
    "order": Field((int,), "a whole number", required=True),
    "summary": Field((str,), "a string"),
}


def load_lesson(path: Path, root: Path | None = None, *, blocks: bool = True) -> Lesson:
    """Parse one lesson file; raise ContentError naming the file and line. Without
    `blocks`, only the front matter is checked now and the live blocks on first use."""
    shown = display_path(path, root)
    text = strip_control(read_text(path, shown, MAX_LESSON_BYTES))
    lines = text.split("\n")
    if lines[0].strip() != "+++":
        raise ContentError(shown, 1, "a lesson must start with '+++' front matter (id, title)")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "+++")
    except StopIteration:
        raise ContentError(shown, 1, "front matter is not closed by a '+++' line") from None
    front_text = "\n".join(lines[1:end])
    front = parse_toml(front_text, shown, first_line=2)
    check = TableCheck(shown, TomlLines(front_text, first_line=2), (), "")
    check.check(front, FRONT_MATTER_FIELDS)
    if not _ID.match(front["id"]):
        raise check.error(f"id '{front['id']}' must be lowercase letters, digits and dashes", "id")
    title = one_line(front["title"]).strip()
    if not title:  # empty, or only characters that are never shown
        raise check.error("'title' must not be empty", "title")
    lesson = Lesson(
        id=front["id"],
        title=title,
        order=front["order"],
        path=shown,
        lines=tuple(lines),
        body_start=end + 1,
        summary=one_line(front.get("summary", "")).strip(),
        find_segments=lesson_segments,
    )
    if blocks:
        _ = lesson.segments  # a broken block is this file's error now
    return lesson


def lesson_segments(lesson: Lesson) -> tuple[Segment, ...]:
    """The lesson's prose and live blocks (see Lesson.segments)."""
    return _segments(list(lesson.lines), lesson.body_start, lesson.path)


_FENCE_LINE = re.compile(r"^[\s>]*(?P<fence>`{3,}|~{3,})\s*$")


@cache
def _markdown_parser() -> MarkdownIt:
    """The parser family the lesson view renders with (Textual's Markdown: gfm-like).

    Only block structure matters here: of the core steps, only normalising the text and
    the block rules run (inline parsing and linkify would triple the time).
    """
    from tui_course.content.markdown import markdown_parser

    parser = markdown_parser()
    parser.core.ruler.enableOnly(["normalize", "block"])
    return parser


# What can open a Markdown block: quote, list, table, heading, fence, rule and HTML marks,
# and an ordered-list number. Plain text adds at most a paragraph per line.
_BLOCK_OPENERS = re.compile(r"[>\-*+|#`~=_<]|\d[.)]")


def _most_blocks(markdown: str) -> int:
    """An upper bound on the blocks markdown-it can make of the text, without parsing it:
    each line gives at most a few blocks of its own (paragraph, row, heading), and each
    opening mark at most two more (a list and its item; a table cell)."""
    return sum(4 + 2 * len(_BLOCK_OPENERS.findall(line)) for line in markdown.split("\n"))


def blocks_problem(markdown: str) -> tuple[int, str] | None:
    """(line from 0, message) when Markdown has more blocks than the view can draw without
    freezing; None otherwise. The line is where the limit is passed."""
    if "\n" not in markdown.strip():  # one line: no table, and nesting stops at 20 deep
        return None
    if _most_blocks(markdown) <= MAX_MARKDOWN_BLOCKS:  # no parse: quizzes load at start-up
        return None
    blocks = line = 0
    for token in _markdown_parser().parse(markdown):
        if token.map is not None:  # table cells have none: their row's line stands
            line = token.map[0]
        if token.nesting == 1 or token.type in _SINGLE_BLOCKS:
            blocks += 1
            if blocks == MAX_MARKDOWN_BLOCKS + 1:
                message = (
                    f"more than {MAX_MARKDOWN_BLOCKS} Markdown blocks (paragraphs, list items,"
                    " table cells): split the text, the screen cannot draw it all at once"
                )
                return line, message
    return None


def _segments(lines: list[str], start: int, shown: str) -> tuple[Segment, ...]:
    """Prose and live blocks, with fences found by markdown-it as the renderer finds them.

    So an indented or quoted ```attentoin is seen (and reported) exactly where the
    lesson view would show it as code.
    """
    body = "\n".join(lines[start:])
    too_big = blocks_problem(body)
    if too_big is not None:
        raise ContentError(shown, start + too_big[0] + 1, too_big[1])
    if "```" not in body and "~~~" not in body:  # no fence at all: skip the parser
        return (MarkdownSegment(body.strip("\n")),) if body.strip() else ()
    # Block checks (and the parameter ranges they use) load with the first lesson opened.
    from tui_course.content.blocks import BLOCKS, names

    segments: list[Segment] = []
    prose_start = start
    for token in _markdown_parser().parse(body):
        if token.type != "fence" or token.map is None:
            continue
        first, end = start + token.map[0], start + token.map[1]
        info = token.info.split()
        name = info[0].lower() if info else ""
        if not _closed(token.markup, lines, first, end):
            message = f"fenced block '{name or token.markup}' is never closed"
            raise ContentError(shown, first + 1, message)
        listing = _listing(info, token, lines, first, shown)
        if listing is None and name in CODE_LANGUAGES:
            continue
        if listing is None and name not in BLOCKS:
            raise ContentError(
                shown,
                first + 1,
                f"unknown block '{name}' (blocks: {names()}; or a code language such as python)",
            )
        if token.level > 0:
            message = f"a '{name}' block must start at the margin, not inside a list or quote"
            raise ContentError(shown, first + 1, message)
        prose = "\n".join(lines[prose_start:first])
        if prose.strip():
            segments.append(MarkdownSegment(prose.strip("\n")))
        if listing is not None:
            segments.append(listing)
        else:
            segments.append(_block(name, token.content.split("\n")[:-1], first + 2, shown))
        prose_start = end
    prose = "\n".join(lines[prose_start:])
    if prose.strip():
        segments.append(MarkdownSegment(prose.strip("\n")))
    return tuple(segments)


def _listing(
    info: list[str], token: Token, lines: list[str], first: int, shown: str
) -> ListingSegment | None:
    """A ```python run``` fence as a runnable listing, checked now: its options, where it
    stands, that it compiles and that it imports nothing its runner lacks. None for any
    other fence (plain ```python stays highlighted prose)."""
    if not info or info[0].lower() not in PYTHON_FENCES or len(info) == 1:
        return None
    options = tuple(word.lower() for word in info[1:])
    runner = LISTING_OPTIONS.get(options)
    if runner is None:
        message = (
            f"python fence: unknown options '{' '.join(info[1:])}' (a runnable listing is"
            " ```python run```, or ```python run keras``` for Keras code)"
        )
        raise ContentError(shown, first + 1, message)
    if token.level > 0:
        message = "a runnable listing must start at the margin, not inside a list or quote"
        raise ContentError(shown, first + 1, message)
    code = token.content
    if not code.strip():
        raise ContentError(shown, first + 1, "a runnable listing has no code")
    if len(code) > MAX_LISTING_CHARS:
        message = f"a runnable listing is at most {MAX_LISTING_CHARS:,} characters"
        raise ContentError(shown, first + 1, message)
    import ast  # on first use: only lessons with runnable listings need it

    try:
        tree = ast.parse(code, shown)
    except SyntaxError as error:
        line = first + 1 + (error.lineno or 1)
        raise ContentError(shown, line, f"python listing: {error.msg}") from None
    if runner is ListingRunner.NUMPY:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for imported in names:
                if imported.split(".")[0] in _NOT_IN_THE_SANDBOX:
                    message = (
                        f"python listing imports {imported}: a ```python run``` listing runs"
                        " with NumPy only (fence Keras code as ```python run keras```)"
                    )
                    raise ContentError(shown, first + 1 + node.lineno, message)
    return ListingSegment(code=code, line=first + 1, runner=runner)


def _closed(markup: str, lines: list[str], first: int, end: int) -> bool:
    """markdown-it runs an unclosed fence to the end of its container: check the last line."""
    if end - first < 2:
        return False
    match = _FENCE_LINE.match(lines[end - 1])
    if match is None:
        return False
    fence = match.group("fence")
    return fence[0] == markup[0] and len(fence) >= len(markup)


def _block(name: str, body: list[str], first_line: int, shown: str) -> BlockSegment:
    from tui_course.content.blocks import parse_block

    text = "\n".join(body)
    table = parse_toml(text, shown, first_line=first_line)
    check = TableCheck(shown, TomlLines(text, first_line=first_line), (), f"{name} block")
    return BlockSegment(name=name, params=parse_block(name, table, check), line=first_line - 1)


def load_lessons(
    folder: Path, root: Path | None = None, *, blocks: bool = True
) -> tuple[list[Lesson], list[ContentError]]:
    """Every *.md lesson in the folder, sorted by order; broken files are reported, not fatal."""
    lessons: list[Lesson] = []
    problems: list[ContentError] = []
    for path in sorted(folder.glob("*.md")):
        try:
            lessons.append(load_lesson(path, root, blocks=blocks))
        except ContentError as error:
            problems.append(error)
        except Exception as error:  # a loader bug must not stop the rest of the course
            shown = display_path(path, root)
            problems.append(ContentError(shown, None, f"cannot be loaded: {error!r}"))
    lessons.sort(key=lambda lesson: (lesson.order, lesson.id))
    return lessons, problems
