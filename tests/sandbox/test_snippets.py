"""Runnable lesson listings: a whole file run in the same sandbox, output as text."""

from __future__ import annotations

import pytest

from tests.sandbox.conftest import level_params
from tui_course.code_check_service import run_snippet
from tui_course.content.code_check import Outcome
from tui_course.sandbox.level import LevelReport
from tui_course.sandbox.limits import Limits

QUICK = Limits(wall_seconds=1.5, cpu_seconds=1, output_bytes=1024)


@pytest.mark.parametrize("report", level_params())
def test_a_listing_runs_and_says_how_it_ended(report: LevelReport) -> None:
    ran = run_snippet("import numpy as np\nprint(np.arange(3) * 2)", QUICK, report)
    assert (ran.outcome, ran.stdout) == (Outcome.PASSED, "[0 2 4]\n")
    failed = run_snippet("import numpy as np\n\nnp.ones(2) @ np.ones(3)\n", QUICK, report)
    assert failed.outcome is Outcome.ERROR and failed.message.startswith("ValueError")
    assert failed.traceback[-1][0] == 3
    looped = run_snippet("print('start', flush=True)\nwhile True:\n    pass\n", QUICK, report)
    assert (looped.outcome, looped.stdout) == (Outcome.TIME_LIMIT, "start\n")
    loud = run_snippet("print('x' * 100_000)", QUICK, report)
    assert loud.truncated and len(loud.stdout) == 1024
