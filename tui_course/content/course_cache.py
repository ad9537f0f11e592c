"""The parsed course kept in the student's data folder, so a start reads it instead of
parsing every TOML and front matter again (about a tenth of a returning student's start-up
CPU when this was written; the course changes far less often than it is opened).

The cache holds a key and the Course, with the segments of the lessons the writing session
had found (the lesson a student opens first shows next time without the lesson parser).
It is used only if the key still matches:

- every entry of the content folder's lessons/ and quizzes/ (name, type, inode, size, and
  the modified and changed times: a file rewritten, added, removed, renamed or re-linked
  changes one of them; the changed time cannot be set back by a user), and where the
  folder really is (problems name files relative to it);
- every tui_course source file that was loaded when the course was parsed or the cache
  written (a newer app, or an edited checkout, parses again), and the Python version.

A file changed in the last SETTLE_SECONDS is not cached: file times tick in coarse steps,
and a second edit in the same step as the read would leave a stale cache with the same
key. The cache is written without following links (paths.write_file_safely, 0600) and read
only if it is a regular file of this user that no one else can write; its pickle may name
only the content model's classes (anything else, or any error, and the course is parsed
as before). Nothing here is ever needed: every failure means "parse it".
"""

from __future__ import annotations

import io
import os
import pickle
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.content.errors import ContentError
from tui_course.content.models import Course, Lesson

if TYPE_CHECKING:
    from tui_course.content.segments import Segment

CACHE_NAME = "course-cache.pickle"
FORMAT = 1
SETTLE_SECONDS = 2.0
MAX_CACHE_BYTES = 16 * 1024 * 1024  # the shipped course's cache is under 100 KB
CONTENT_FOLDERS = ("lessons", "quizzes")
# What the pickle may name: the content model and its parts, and a path (a code question's
# module file). Classes only: nothing in a cache can call a function.
_ALLOWED_MODULES = frozenset(
    {
        "tui_course.content.models",
        "tui_course.content.code_model",
        "tui_course.content.errors",
        "tui_course.content.segments",
    }
)
_ALLOWED_GLOBALS = frozenset({("pathlib", "PosixPath")})
_FIND_SEGMENTS = "lesson_segments"  # Lesson.find_segments, stored by name (see _Pickler)

Signature = tuple[int, int, int, int, int, int]  # mode, inode, device, size, mtime, ctime
Entry = tuple[str, str, Signature | None]  # folder, name (or where a link leads), signature
ContentKey = tuple[int, str, tuple[Entry, ...]]  # format, the real content folder, entries
Save = Callable[[], None]


def cached_course(
    root: Path, cache: Path, *, now: float | None = None
) -> tuple[Course, Save | None]:
    """The course in `root`, from `cache` if that was made from these very files by this
    very code, else parsed (lessons' live blocks are found on first use, as the app's start
    wants); with a function that writes the cache, or None when there is nothing to write
    (read from it, or a file changed too recently to be trusted). `now` is the wall clock
    the file times are held against (tests move it on instead of waiting)."""
    key = content_key(root)
    if key is not None:
        cached = _read(cache, key)
        if cached is not None:
            return cached, None
    from tui_course.content.course import load_course

    course = load_course(root, lesson_blocks=False)
    if key is None or _too_recent(key, time.time() if now is None else now):
        return course, None
    code = _code_key()
    return course, lambda: _write(cache, key, _code_at_write(code), course)


def content_key(root: Path) -> ContentKey | None:
    """What the parsed course depends on, read with stat calls only (no file is opened: a
    FIFO left in quizzes/ cannot block this); None without a content folder."""
    try:
        real = os.path.realpath(root)
        if not stat.S_ISDIR(os.stat(real).st_mode):
            return None
    except (OSError, ValueError):
        return None
    entries: list[Entry] = []
    for name in CONTENT_FOLDERS:
        folder = os.path.join(real, name)
        entries.append((name, "", _signature(folder)))
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for entry in names:
            path = os.path.join(folder, entry)
            entries.append((name, entry, _signature(path)))
            if os.path.islink(path):  # where it leads is part of what was read
                entries.append((name, os.path.realpath(path), None))
    return (FORMAT, real, tuple(entries))


def _signature(path: str) -> Signature | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mode, st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _too_recent(key: ContentKey, now: float) -> bool:
    """A file changed within SETTLE_SECONDS of `now` (it may change again in the same tick
    of the file clock, unseen by its signature)."""
    newest = max((max(sig[4], sig[5]) for _, _, sig in key[2] if sig is not None), default=0)
    return newest / 1e9 > now - SETTLE_SECONDS


def _code_key() -> tuple[object, ...]:
    """The Python version, and every tui_course source file loaded now (parsing used no
    other), each with its signature."""
    files: set[str] = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (name == "tui_course" or name.startswith("tui_course.")) and isinstance(path, str):
            files.add(path)
    return (sys.version, tuple((path, _signature(path)) for path in sorted(files)))


def _code_at_write(at_parse: tuple[object, ...]) -> tuple[object, ...]:
    """The code key for a cache written now: what parsing loaded, and what finding the
    lessons' segments since loaded (the block parser; the segments found go in the cache
    too). A file that changed since the course was parsed gets its old signature, so the
    next start does not trust what the old code made."""
    now = _code_key()
    known = dict(at_parse[1])  # type: ignore[call-overload]
    files = tuple((path, known.get(path, signature)) for path, signature in now[1])  # type: ignore[attr-defined]
    return (now[0], files)


def _code_unchanged(code: object) -> bool:
    if not isinstance(code, tuple) or len(code) != 2 or code[0] != sys.version:
        return False
    files = code[1]
    return isinstance(files, tuple) and all(
        isinstance(each, tuple)
        and len(each) == 2
        and isinstance(each[0], str)
        and _signature(each[0]) == each[1]
        for each in files
    )


def _write(cache: Path, key: ContentKey, code: tuple[object, ...], course: Course) -> None:
    """Write the cache whole (a reader sees the old one or the new one); any failure (a
    full or read-only disk, a folder gone) leaves it unwritten."""
    from tui_course.paths import write_file_safely

    buffer = io.BytesIO()
    try:
        pickler = _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dump((key, code))
        pickler.dump(course)
        write_file_safely(cache, buffer.getvalue(), mode=0o600)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return


def _read(cache: Path, key: ContentKey) -> Course | None:
    try:
        fd = os.open(cache, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as file:
            st = os.fstat(file.fileno())
            if (
                not stat.S_ISREG(st.st_mode)
                or st.st_uid != os.geteuid()
                or st.st_mode & 0o022
                or st.st_size > MAX_CACHE_BYTES
            ):
                return None
            data = file.read(MAX_CACHE_BYTES + 1)
        if len(data) > MAX_CACHE_BYTES:
            return None
        unpickler = _Unpickler(io.BytesIO(data))
        header = unpickler.load()
        if not isinstance(header, tuple) or len(header) != 2 or header[0] != key:
            return None
        if not _code_unchanged(header[1]):
            return None
        course = unpickler.load()
    except Exception:  # a damaged or foreign cache: parse instead
        return None
    return course if isinstance(course, Course) else None


class _Pickler(pickle.Pickler):
    """Stores a lesson's segment finder by name: loading it then imports nothing (the
    lesson loader and markdown-it come when a lesson's segments are first wanted)."""

    def __init__(self, file: io.BytesIO, protocol: int) -> None:
        from tui_course.content.lessons import lesson_segments

        super().__init__(file, protocol=protocol)
        self._lesson_segments = lesson_segments

    def persistent_id(self, obj: Any) -> str | None:
        return _FIND_SEGMENTS if obj is self._lesson_segments else None

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is ContentError:  # a frozen exception cannot be pickled as one
            return ContentError, (obj.path, obj.line, obj.message)
        if type(obj) is Lesson:  # its fields, and its segments if this session found them
            args = tuple(getattr(obj, each.name) for each in fields(Lesson))
            segments = vars(obj).get("segments")  # Lesson.segments, a cached_property
            if segments is not None and all(_plain_segment(each) for each in segments):
                return Lesson, args, {"segments": segments}  # the next start shows it unparsed
            return Lesson, args
        if isinstance(obj, Enum):  # by value: early 3.11 pickles a member as getattr(cls, name)
            return type(obj), (obj.value,)
        return NotImplemented


def _plain_segment(segment: object) -> bool:
    """A segment whose block parameters are plain values (what the unpickler may load)."""
    from tui_course.content.segments import BlockSegment, ListingSegment, MarkdownSegment

    if isinstance(segment, BlockSegment):
        return _plain_value(segment.params)
    return isinstance(segment, MarkdownSegment | ListingSegment)


def _plain_value(value: object) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_plain_value(each) for each in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain_value(each) for key, each in value.items())
    return False


def _find_segments(lesson: Lesson) -> tuple[Segment, ...]:
    from tui_course.content.lessons import lesson_segments

    return lesson_segments(lesson)


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        if pid == _FIND_SEGMENTS:
            return _find_segments
        raise pickle.UnpicklingError("unknown persistent id")

    def find_class(self, module: str, name: str) -> Any:
        if module in _ALLOWED_MODULES or (module, name) in _ALLOWED_GLOBALS:
            found = super().find_class(module, name)
            # a class of the model, not one a model module imports (cached_property, ...)
            if isinstance(found, type) and (
                found.__module__ in _ALLOWED_MODULES or (module, name) in _ALLOWED_GLOBALS
            ):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a course")
