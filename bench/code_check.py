"""How long checking a correct attention_weights solution takes, request to verdict.

Side by side, alternating, in this one invocation:
- baseline: starting `python -I -c "import numpy"` as a child and waiting for it (the
  issue's yardstick: a check should cost at most 2x that);
- warm: CodeChecker.check with its pre-started sandboxed worker (what the editor uses);
- cold: a one-off check (`attn-tui check`): a new sandbox and the reference's child;
- sandbox overhead: the harness's interpreter start (-I -S, NumPy imported) inside the
  checks' bwrap command line, as a ratio to the same start without bwrap.

    python bench/code_check.py [--trials 15]

Prints the medians and the ratios (target: warm / baseline <= 2).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SOLUTION = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def timed(action) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=15)
    args = parser.parse_args()

    from tui_course.codecheck.service import CodeChecker, check
    from tui_course.content.quizzes import load_quiz
    from tui_course.sandbox.command import SANDBOX_SITE, bwrap_command, numpy_dirs, python_binary
    from tui_course.sandbox.level import Level, sandbox_level
    from tui_course.sandbox.limits import Limits

    question = load_quiz(REPO / "quizzes" / "write-the-code.toml", REPO).questions[0]
    report = sandbox_level()
    baseline_argv = [sys.executable, "-I", "-c", "import numpy"]
    # the sandbox's own cost: the same interpreter start with and without bwrap around it
    site = str(numpy_dirs()[0].parent)
    bare_argv = [
        python_binary(),
        "-I",
        "-S",
        "-c",
        f"import sys; sys.path.append({site!r}); import numpy",
    ]
    sandboxed_argv: list[str] | None = None
    if report.level is Level.BWRAP and report.bwrap:
        argv = bwrap_command(report.bwrap, [], Limits()).argv
        inside = f"import sys; sys.path.append({SANDBOX_SITE!r}); import numpy"
        sandboxed_argv = [
            *argv[: argv.index("--")],
            "--",
            python_binary(),
            "-I",
            "-S",
            "-c",
            inside,
        ]

    def run(argv: list[str]) -> None:
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    samples: dict[str, list[float]] = {
        "baseline": [],
        "warm": [],
        "cold": [],
        "bare start": [],
        "bwrap start": [],
    }
    verdicts: list[object] = []
    with CodeChecker() as checker:
        assert checker.check(question, SOLUTION).passed  # the reference's results, cached
        time.sleep(0.5)  # the next worker warms up, as it does while a student types
        for _ in range(args.trials):
            samples["baseline"].append(timed(lambda: run(baseline_argv)))
            samples["warm"].append(
                timed(lambda: verdicts.append(checker.check(question, SOLUTION)))
            )
            assert getattr(verdicts[-1], "passed", False), verdicts[-1]
            # the spare for the next warm check starts now: let it, before timing the rest
            # (its NumPy import would otherwise be counted against the cold check)
            time.sleep(0.5)
            samples["cold"].append(timed(lambda: verdicts.append(check(question, SOLUTION))))
            assert getattr(verdicts[-1], "passed", False), verdicts[-1]
            samples["bare start"].append(timed(lambda: run(bare_argv)))
            if sandboxed_argv is not None:
                samples["bwrap start"].append(timed(lambda: run(sandboxed_argv)))
    medians = {name: statistics.median(values) for name, values in samples.items() if values}
    base = medians["baseline"]
    print(f"sandbox level: {report.level} ({report.detail}); {args.trials} trials each")
    for name, value in medians.items():
        print(f"{name:>12}: median {value * 1000:7.1f} ms   {value / base:5.2f}x baseline")
    print(f"warm check / python -I -c 'import numpy': {medians['warm'] / base:.2f} (target <= 2)")
    if "bwrap start" in medians:
        overhead = medians["bwrap start"] / medians["bare start"]
        print(f"sandbox overhead (the same start in bwrap / without): {overhead:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
