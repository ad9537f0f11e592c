"""The words under a runnable listing: how the run ended and what it printed, as plain text.

What a listing prints is untrusted (a student may have edited it to print escape codes
or 100 MB): every line is cleaned of control characters, long lines are cut and only
the first lines are kept, each cut said in words.
"""

from __future__ import annotations

from tui_course.listings.run import ListingOutcome, ListingResult
from tui_course.text.safe import clean
from tui_course.views.listing import ListingState

MAX_SHOWN_LINES = 60
MAX_LINE_CHARS = 300

_HEADLINES = {
    ListingOutcome.ERROR: "Error",
    ListingOutcome.SYNTAX_ERROR: "Syntax error",
    ListingOutcome.EXITED: "Stopped early",
    ListingOutcome.TIME_LIMIT: "Time limit",
    ListingOutcome.MEMORY_LIMIT: "Memory limit",
    ListingOutcome.CRASHED: "Crashed",
    ListingOutcome.UNAVAILABLE: "Cannot run",
}


def shown_lines(text: str, cut_at_source: bool, limit: int = MAX_SHOWN_LINES) -> list[str]:
    """Captured output as lines fit to show: cleaned, each cut to MAX_LINE_CHARS, at most
    `limit` of them, and a last line saying what was left out."""
    lines = clean(text.replace("\t", "    ")).rstrip("\n").split("\n") if text.strip() else []
    shown = [
        line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 3] + "..."
        for line in lines[:limit]
    ]
    if len(lines) > limit:
        shown.append(f"... ({len(lines) - limit} more lines not shown)")
    if cut_at_source:
        shown.append("... (cut: it printed more than the 64 KB kept)")
    return shown


def headline(result: ListingResult) -> str:
    if result.outcome is ListingOutcome.RAN:
        return f"Ran in {result.seconds:.2f} s ({result.where})."
    where = f" ({result.where})" if result.where else ""
    return f"{_HEADLINES[result.outcome]}: {clean(result.detail)}{where}"


def listing_text(state: ListingState) -> str:
    """Everything under the listing: status, output, errors ("" before the first run)."""
    lines: list[str] = []
    if state.notice:
        lines.append(state.notice)
    if state.running is not None:
        lines.append(
            "Running... (a Keras listing takes a while: TensorFlow loads first)"
            if state.is_keras
            else "Running..."
        )
    result = state.result
    if result is not None:
        lines.append(headline(result))
        if state.result_is_stale:
            lines.append("(from the code before your last changes: run it again)")
        output = shown_lines(result.stdout, result.stdout_cut)
        if output:
            lines += ["Output:", *output]
        elif result.outcome is ListingOutcome.RAN:
            lines.append("It printed nothing.")
        # TensorFlow fills stderr with notices even when all is well: shown only on failure
        if result.outcome is not ListingOutcome.RAN or not state.is_keras:
            errors = shown_lines(result.stderr, result.stderr_cut, limit=20)
            if errors:
                lines += ["Errors and warnings:", *errors]
    return "\n".join(lines)


def listing_caption(state: ListingState, ascii_only: bool = False) -> str:
    """The frame's title: what this listing is and its keys."""
    runs_in = "Keras" if state.is_keras else "NumPy"
    keys = "ctrl+r run"
    if state.may_edit:
        keys += ", i edit" if not state.editing else ", Esc done, ctrl+n reset"
    edited = " (edited)" if state.edited else ""
    return f"runnable {runs_in} listing{edited}: {keys}"
