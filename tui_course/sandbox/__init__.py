"""Running untrusted student code: a child process under bubblewrap (or rlimits alone).

Nothing here imports NumPy at import time or knows about grading: it builds the
child's command line, starts it, enforces the wall clock on the whole process group,
and moves only arrays and capped text across. The judge (content.code_check) and
the service (tui_course.codecheck.service) sit above it.
"""

from tui_course.sandbox.level import Level, LevelReport, sandbox_level
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.runner import CaseResult, RunResult, Worker, run_code

__all__ = [
    "CaseResult",
    "Level",
    "LevelReport",
    "Limits",
    "RunResult",
    "Worker",
    "run_code",
    "sandbox_level",
]
