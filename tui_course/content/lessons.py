"""Load Markdown lessons: TOML front matter between +++ lines, then the text.

Fenced blocks whose name is a known block (content.blocks) become live pieces;
fences in a known code language stay code; any other fence name is an error,
so a typo such as ```attentoin is caught instead of shown as code.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui_course.content.blocks import BLOCK_FIELDS, check_block
from tui_course.content.errors import ContentError, display_path
from tui_course.content.models import BlockSegment, Lesson, MarkdownSegment, Segment
from tui_course.content.text import strip_control
from tui_course.content.tomlfile import Field, TableCheck, TomlLines, parse_toml, read_text
from tui_course.safe_text import one_line

CODE_LANGUAGES = frozenset(
    {"", "python", "py", "text", "console", "bash", "sh", "toml", "json", "markdown", "md"}
)
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)\s*$")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")

FRONT_MATTER_FIELDS = {
    "id": Field((str,), "a lesson id (lowercase letters, digits, dashes)", required=True),
    "title": Field((str,), "a string", required=True),
    "order": Field((int,), "a whole number", required=True),
    "summary": Field((str,), "a string"),
}


def load_lesson(path: Path, root: Path | None = None) -> Lesson:
    """Parse one lesson file; raise ContentError naming the file and line."""
    shown = display_path(path, root)
    text = strip_control(read_text(path, shown))
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
    segments = _segments(lines, end + 1, shown)
    return Lesson(
        id=front["id"],
        title=one_line(front["title"]).strip(),
        order=front["order"],
        path=shown,
        segments=segments,
        summary=one_line(front.get("summary", "")).strip(),
    )


def _segments(lines: list[str], start: int, shown: str) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    prose: list[str] = []
    index = start
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            prose.append(lines[index])
            index += 1
            continue
        fence, name = match.group("fence"), match.group("info").lower()
        close = _closing_fence(lines, index + 1, fence)
        if close is None:
            raise ContentError(shown, index + 1, f"fenced block '{name or fence}' is never closed")
        if name in CODE_LANGUAGES:
            prose.extend(lines[index : close + 1])
        elif name in BLOCK_FIELDS:
            if "\n".join(prose).strip():
                segments.append(MarkdownSegment("\n".join(prose).strip("\n")))
            prose = []
            segments.append(_block(name, lines[index + 1 : close], index + 2, shown))
        else:
            known = ", ".join(sorted(BLOCK_FIELDS))
            raise ContentError(
                shown,
                index + 1,
                f"unknown block '{name}' (blocks: {known}; or a code language such as python)",
            )
        index = close + 1
    if "\n".join(prose).strip():
        segments.append(MarkdownSegment("\n".join(prose).strip("\n")))
    return tuple(segments)


def _closing_fence(lines: list[str], start: int, fence: str) -> int | None:
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            return index
    return None


def _block(name: str, body: list[str], first_line: int, shown: str) -> BlockSegment:
    text = "\n".join(body)
    params = parse_toml(text, shown, first_line=first_line)
    check = TableCheck(shown, TomlLines(text, first_line=first_line), (), f"{name} block")
    check_block(name, params, check)
    return BlockSegment(name=name, params=params, line=first_line - 1)


def load_lessons(folder: Path, root: Path | None = None) -> tuple[list[Lesson], list[ContentError]]:
    """Every *.md lesson in the folder, sorted by order; broken files are reported, not fatal."""
    lessons: list[Lesson] = []
    problems: list[ContentError] = []
    for path in sorted(folder.glob("*.md")):
        try:
            lessons.append(load_lesson(path, root))
        except ContentError as error:
            problems.append(error)
        except Exception as error:  # a loader bug must not stop the rest of the course
            shown = display_path(path, root)
            problems.append(ContentError(shown, None, f"cannot be loaded: {error!r}"))
    lessons.sort(key=lambda lesson: (lesson.order, lesson.id))
    return lessons, problems
