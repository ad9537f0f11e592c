"""Load a whole content folder (lessons/ and quizzes/) and cross-check it."""

from __future__ import annotations

from pathlib import Path

from tui_course.content.errors import ContentError
from tui_course.content.labs import BUILTIN_LABS
from tui_course.content.lessons import load_lessons
from tui_course.content.models import Course, Lesson, Quiz
from tui_course.content.quizzes import load_quizzes


def load_course(root: Path, *, lesson_blocks: bool = True) -> Course:
    """Everything that loads; each problem is kept as a ContentError instead of raised.

    A broken quiz or lesson is left out and reported, so the rest of the course still opens.
    Without `lesson_blocks` (the app's start), lessons' live blocks are checked on first use
    (Lesson.segments) instead of now.
    """
    problems: list[ContentError] = []
    lessons: list[Lesson] = []
    quizzes: list[Quiz] = []
    if not root.is_dir():
        problems.append(ContentError(root.as_posix(), None, "content folder not found"))
        return Course((), (), tuple(problems), BUILTIN_LABS)
    for name in ("lessons", "quizzes"):
        folder = root / name
        if not folder.is_dir():
            problems.append(ContentError(f"{name}/", None, "folder not found"))
    if (root / "lessons").is_dir():
        lessons, found = load_lessons(root / "lessons", root, blocks=lesson_blocks)
        problems.extend(found)
    if (root / "quizzes").is_dir():
        quizzes, found = load_quizzes(root / "quizzes", root)
        problems.extend(found)
    lessons, quizzes = _drop_duplicates(root, lessons, quizzes, problems)
    lesson_ids = {lesson.id for lesson in lessons}
    for quiz in quizzes:
        if quiz.after is not None and quiz.after not in lesson_ids:
            problems.append(
                ContentError(
                    quiz.path,
                    _line_of_key(root / quiz.path, "after"),
                    f"after = '{quiz.after}' is not a lesson id",
                )
            )
    orders: dict[int, str] = {}
    for lesson in lessons:
        if lesson.order in orders:
            problems.append(
                ContentError(
                    lesson.path,
                    _line_of_key(root / lesson.path, "order"),
                    f"order {lesson.order} is also used by lesson '{orders[lesson.order]}'",
                )
            )
        orders.setdefault(lesson.order, lesson.id)
    return Course(tuple(lessons), tuple(quizzes), tuple(problems), BUILTIN_LABS)


def _drop_duplicates(
    root: Path, lessons: list[Lesson], quizzes: list[Quiz], problems: list[ContentError]
) -> tuple[list[Lesson], list[Quiz]]:
    """Lesson and quiz ids share one namespace (--open ID takes either)."""
    seen: dict[str, str] = {lab.id: "a built-in lab" for lab in BUILTIN_LABS}
    kept_lessons: list[Lesson] = []
    kept_quizzes: list[Quiz] = []
    items: tuple[Lesson | Quiz, ...] = (*lessons, *quizzes)
    for item in items:
        if item.id in seen:
            problems.append(
                ContentError(
                    item.path,
                    _line_of_key(root / item.path, "id"),
                    f"id '{item.id}' is already used by {seen[item.id]}",
                )
            )
            continue
        seen[item.id] = item.path
        if isinstance(item, Lesson):
            kept_lessons.append(item)
        else:
            kept_quizzes.append(item)
    return kept_lessons, kept_quizzes


def _line_of_key(path: Path, key: str) -> int | None:
    """The first line assigning `key`, for cross-file problems found after parsing."""
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip().startswith(key) and "=" in line:
                return number
    except OSError:
        return None
    return None
