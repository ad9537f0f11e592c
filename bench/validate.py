"""`attn-tui validate` time: the shipped course, and each hostile file alone.

Targets (issue 8): the shipped course under 2 s, any single hostile file under 5 s.
Each run is a fresh `python -m tui_course` process; the baseline is `--version`
(interpreter start and the CLI's imports), run alternately in this invocation, so
the ratios show what validating itself costs on this machine right now.

    python bench/validate.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fixtures.hostile_corpus import write_hostile_course  # noqa: E402

SHIPPED_TARGET = 2.0
HOSTILE_TARGET = 5.0


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tui_course", *args],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=120,
    )
    return time.perf_counter() - start


def single_file_courses(corpus: Path, into: Path) -> dict[str, Path]:
    """One content folder per hostile file, holding only that file."""
    courses: dict[str, Path] = {}
    for index, path in enumerate(sorted(corpus.glob("*/*"))):
        course = into / f"course-{index}"
        for folder in ("lessons", "quizzes"):
            (course / folder).mkdir(parents=True)
        (course / path.parent.name / path.name).write_bytes(path.read_bytes())
        courses[f"{path.parent.name}/{path.name!r}"] = course
    return courses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as temp:
        corpus = write_hostile_course(Path(temp) / "corpus")
        runs: dict[str, list[str]] = {"baseline (--version)": ["--version"]}
        runs["shipped course"] = ["validate"]
        for name, course in single_file_courses(corpus, Path(temp)).items():
            runs[name] = ["validate", str(course)]
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, args in runs.items():
                times[name].append(timed(args))
    medians = {name: statistics.median(values) for name, values in times.items()}
    baseline = medians.pop("baseline (--version)")
    print(f"baseline `attn-tui --version`: {baseline:.2f} s (median of {rounds})")
    failed = False
    for name, seconds in medians.items():
        target = SHIPPED_TARGET if name == "shipped course" else HOSTILE_TARGET
        verdict = "ok" if seconds < target else "TOO SLOW"
        failed |= seconds >= target
        print(
            f"{seconds:6.2f} s  {seconds / baseline:5.1f}x baseline  "
            f"target < {target:.0f} s  {verdict}  {name}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
