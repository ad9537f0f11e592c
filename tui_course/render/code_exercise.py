"""The words around a code exercise's editor: what is going on, the keys, the solution.

The verdict itself is the judge's, worded by render/code.py (the same text
`attn-tui check` prints); this module says only what the editor adds: a check
under way, a verdict for code that has changed since, the draft's state, and the model
solution once the question is closed.
"""

from __future__ import annotations

from tui_course.text.safe import clean
from tui_course.views.code_exercise import CodeExercise, CodePhase

CHECK_KEY = "ctrl+r"
RESET_KEY = "ctrl+n"
EDITOR_KEY = "ctrl+o"


def opening_text(ascii_only: bool = False) -> str:
    """Said from the moment a code question shows until its editor takes keys (the first
    one takes most of a second to build)."""
    dots = "..." if ascii_only else "\u2026"
    return f"Opening the editor{dots} wait for it: keys pressed before it opens are not typed."


def status_text(state: CodeExercise, ascii_only: bool = False) -> str:
    """One or two lines under the editor ("" when there is nothing to say)."""
    lines: list[str] = []
    if state.opening:
        lines.append(opening_text(ascii_only))
    if state.not_typed:
        keys, verb = (
            ("1 key", "was") if state.not_typed == 1 else (f"{state.not_typed} keys", "were")
        )
        lines.append(f"The editor was still opening: {keys} pressed then {verb} not typed.")
    if state.notice:
        lines.append(state.notice)
    if state.phase is CodePhase.CHECKING:
        lines.append("Checking your code in the sandbox... (keep typing: the verdict comes here)")
    elif state.verdict is not None and state.verdict_is_stale:
        lines.append(
            f"The verdict below is for your code before your last edits: {CHECK_KEY} checks again."
        )
    return "\n".join(lines)


def solution_text(state: CodeExercise) -> str:
    """The model solution, only once the question is closed (a pass or a reveal)."""
    if not state.solution_visible:
        return ""
    heading = (
        "A model solution (yours passed: compare them):"
        if state.closed is CodePhase.PASSED
        else "A model solution:"
    )
    return f"{heading}\n\n{clean(state.solution.rstrip())}"


def key_line(state: CodeExercise, editor_allowed: bool) -> list[str]:
    """The keys that work in the exercise now, for the quiz's key line."""
    keys = [f"{CHECK_KEY} or F5: check", f"{RESET_KEY}: reset to the starter"]
    if editor_allowed:
        keys.append(f"{EDITOR_KEY}: open in $EDITOR")
    keys.append("Esc: leave the editor (then h hint, v answer)")
    return keys
