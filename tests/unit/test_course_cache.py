"""The parsed course kept in the data folder: used only while it is what parsing would give,
parsed again after any change to the content or the code, and never trusted blindly (a
planted or damaged cache means "parse", never code run or a crash)."""

from __future__ import annotations

import io
import os
import pickle
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tui_course.content import course_cache
from tui_course.content.course import load_course
from tui_course.content.course_cache import CACHE_NAME, SETTLE_SECONDS, cached_course
from tui_course.content.models import Course


def later() -> float:
    """A clock by which every file a test made has settled."""
    return time.time() + 10 * SETTLE_SECONDS


def copy(tmp_path: Path, name: str = "code_course") -> Path:
    root = tmp_path / "course"
    shutil.copytree(FIXTURES / name, root)
    return root


def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each parse of a course from now on, by its folder."""
    seen: list[Path] = []
    real = load_course

    def counted(root: Path, **options: bool) -> Course:
        seen.append(root)
        return real(root, **options)

    monkeypatch.setattr("tui_course.content.course.load_course", counted)
    return seen


def cache_it(root: Path, cache: Path) -> Course:
    course, save = cached_course(root, cache, now=later())
    assert save is not None
    save()
    return course


def test_a_second_start_reads_the_course_the_first_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    first = cache_it(root, cache)
    assert cache.stat().st_mode & 0o777 == 0o600
    seen = parses(monkeypatch)
    again, save = cached_course(root, cache, now=later())
    assert seen == [] and save is None
    assert again == first == load_course(root, lesson_blocks=False)
    code = next(q for quiz in again.quizzes for q in quiz.questions if q.code is not None)
    assert code.code is not None and code.code.module == root / "quizzes" / "double_ref.py"
    # a lesson from the cache still finds its live blocks when they are first wanted
    lesson = again.lessons[0]
    assert lesson.segments == load_course(root).lessons[0].segments


def test_files_changed_just_now_are_not_cached(tmp_path: Path) -> None:
    """File times tick coarsely: a second edit in the same tick would keep the key."""
    root = copy(tmp_path)
    _, save = cached_course(root, tmp_path / CACHE_NAME)  # the copy was made just now
    assert save is None
    _, save = cached_course(root, tmp_path / CACHE_NAME, now=later())
    assert save is not None


def _rewrite_same_size_and_time(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    before = path.stat()
    changed = text.replace("Softmax", "Hardmax", 1) if "Softmax" in text else text[::-1]
    assert len(changed) == len(text) and changed != text
    path.write_text(changed, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # size and mtime as before


@pytest.mark.parametrize(
    "change",
    [
        "quiz rewritten, size and mtime kept",
        "lesson rewritten, size and mtime kept",
        "quiz added",
        "quiz removed",
        "module beside the quiz removed",
        "quiz replaced by a link",
    ],
)
def test_any_change_to_the_content_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    cache_it(root, cache)
    quiz = root / "quizzes" / "code.toml"
    if change == "quiz rewritten, size and mtime kept":
        _rewrite_same_size_and_time(quiz)
    elif change == "lesson rewritten, size and mtime kept":
        _rewrite_same_size_and_time(root / "lessons" / "01-listings.md")
    elif change == "quiz added":
        shutil.copy(FIXTURES / "plain_course" / "quizzes" / "small.toml", root / "quizzes")
    elif change == "quiz removed":
        quiz.unlink()
    elif change == "module beside the quiz removed":
        (root / "quizzes" / "double_ref.py").unlink()
    else:
        moved = tmp_path / "elsewhere.toml"
        quiz.rename(moved)
        quiz.symlink_to(moved)
    seen = parses(monkeypatch)
    course, _ = cached_course(root, cache, now=later())
    assert seen == [root]
    assert course == load_course(root, lesson_blocks=False)


def test_problems_are_kept_with_their_file_and_line(tmp_path: Path) -> None:
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    (root / "quizzes" / "double_ref.py").unlink()  # the code question's module is missing
    first = cache_it(root, cache)
    assert first.problems
    again, save = cached_course(root, cache, now=later())
    assert save is None and again.problems == first.problems
    assert [str(p) for p in again.problems] == [str(p) for p in first.problems]
    assert "quizzes/code.toml:" in str(again.problems[0])


def test_a_changed_app_parses_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache names the source files of the code that parsed it (here one stands in for
    them all) and the Python version."""
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    source = tmp_path / "models.py"
    source.write_text("# version 1\n")
    monkeypatch.setattr(
        course_cache, "_code_key", lambda: (sys.version, ((str(source), stat_of(source)),))
    )
    cache_it(root, cache)
    assert cached_course(root, cache, now=later())[1] is None  # read from the cache
    source.write_text("# version 2\n")
    seen = parses(monkeypatch)
    cached_course(root, cache, now=later())
    assert seen == [root]


def stat_of(path: Path) -> object:
    return course_cache._signature(str(path))


def test_the_real_code_key_names_the_parsers_own_files() -> None:
    load_course(FIXTURES / "code_course")
    version, files = course_cache._code_key()
    names = {Path(path).name for path, _ in files}  # type: ignore[attr-defined]
    assert version == sys.version
    assert {"models.py", "quizzes.py", "code_parse.py", "tomlfile.py"} <= names


class _Planted:
    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, ("touch planted-ran",))


@pytest.mark.parametrize(
    "planted",
    ["code to run", "garbage", "truncated", "group-writable", "symlink", "too large", "folder"],
)
def test_a_planted_or_damaged_cache_is_parsed_over_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    cache_it(root, cache)
    good = cache.read_bytes()
    monkeypatch.chdir(tmp_path)
    key = course_cache.content_key(root)
    if planted == "code to run":  # the right key, then a payload calling os.system
        header = pickle.dumps((key, course_cache._code_key()))
        cache.write_bytes(header + pickle.dumps(_Planted()))
    elif planted == "garbage":
        cache.write_bytes(b"\x80\x05not a pickle at all")
    elif planted == "truncated":
        cache.write_bytes(good[: len(good) // 2])
    elif planted == "group-writable":
        cache.chmod(0o620)
    elif planted == "symlink":
        target = tmp_path / "target"
        target.write_bytes(good)
        cache.unlink()
        cache.symlink_to(target)
    elif planted == "too large":
        monkeypatch.setattr(course_cache, "MAX_CACHE_BYTES", len(good) - 1)
    else:
        cache.unlink()
        cache.mkdir()
    seen = parses(monkeypatch)
    course, save = cached_course(root, cache, now=later())
    assert seen == [root] and course == load_course(root, lesson_blocks=False)
    assert not (tmp_path / "planted-ran").exists()
    if planted == "symlink":  # the next save replaces the link, never writes through it
        assert save is not None
        save()
        assert not cache.is_symlink() and (tmp_path / "target").read_bytes() == good


def test_the_cache_names_only_the_models_own_classes() -> None:
    """A class a model module merely imports (functools.cached_property, typing's TypeVar)
    is refused; the model's own, and a path, are named."""
    for module, name in (
        ("tui_course.content.models", "cached_property"),
        ("tui_course.content.models", "TypeVar"),
        ("tui_course.content.code_model", "Mapping"),
    ):
        data = f"c{module}\n{name}\n.".encode()
        with pytest.raises(pickle.UnpicklingError):
            course_cache._Unpickler(io.BytesIO(data)).load()
    for module, name in (
        ("tui_course.content.models", "Quiz"),
        ("tui_course.content.models", "CodeSpec"),  # defined in code_model, also allowed
        ("pathlib", "PosixPath"),
    ):
        data = f"c{module}\n{name}\n.".encode()
        assert course_cache._Unpickler(io.BytesIO(data)).load().__name__ == name


def test_a_cache_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    root = copy(tmp_path)
    _, save = cached_course(root, tmp_path / "gone" / CACHE_NAME, now=later())
    assert save is not None
    save()  # no folder to write in: nothing written, nothing raised
    assert not (tmp_path / "gone").exists()


def test_a_fifo_in_the_content_does_not_block_the_key(tmp_path: Path) -> None:
    root = copy(tmp_path)
    os.mkfifo(root / "quizzes" / "stuck.toml")
    key = course_cache.content_key(root)  # stat only: opening the FIFO would wait forever
    assert key is not None and any(name == "stuck.toml" for _, name, _ in key[2])
    assert course_cache.content_key(tmp_path / "missing") is None


def test_segments_found_before_the_save_are_kept_for_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app saves after its first screen, by when the lesson it shows has its segments:
    the next start shows that lesson from the cache, without the lesson parser."""
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    course, save = cached_course(root, cache, now=later())
    assert save is not None
    shown = course.lessons[0]
    found = shown.segments
    save()
    seen = parses(monkeypatch)
    again, _ = cached_course(root, cache, now=later())
    assert seen == [] and again == course
    assert vars(again.lessons[0])["segments"] == found  # found by no parser this start
    assert all("segments" not in vars(lesson) for lesson in again.lessons[1:])
    assert [lesson.segments for lesson in again.lessons] == [
        lesson.segments for lesson in course.lessons
    ]


def test_segments_with_values_the_cache_cannot_hold_are_left_to_the_parser(
    tmp_path: Path,
) -> None:
    """Block parameters other than plain values (a TOML date) are not pickled: the cache
    still loads, and that lesson's segments are found again when shown."""
    import datetime

    from tui_course.content.segments import BlockSegment

    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    course, save = cached_course(root, cache, now=later())
    assert save is not None
    odd = BlockSegment("pe-table", {"when": datetime.date(2026, 1, 1)}, 3)
    vars(course.lessons[0])["segments"] = (odd,)
    save()
    again, save_again = cached_course(root, cache, now=later())
    assert save_again is None  # read from the cache
    assert "segments" not in vars(again.lessons[0])


def test_a_changed_block_parser_drops_the_cached_segments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code loaded after the course was parsed (finding a lesson's segments loads the block
    parser) is in the key too: a change to it parses again."""
    root, cache = copy(tmp_path), tmp_path / CACHE_NAME
    parser_file = tmp_path / "blocks.py"
    parser_file.write_text("# version 1\n")
    loaded: list[tuple[str, object]] = []
    monkeypatch.setattr(course_cache, "_code_key", lambda: (sys.version, tuple(loaded)))
    _, save = cached_course(root, cache, now=later())
    assert save is not None
    loaded.append((str(parser_file), stat_of(parser_file)))  # loaded while showing a lesson
    save()
    assert cached_course(root, cache, now=later())[1] is None  # read from the cache
    parser_file.write_text("# version 2, longer\n")
    seen = parses(monkeypatch)
    cached_course(root, cache, now=later())
    assert seen == [root]
