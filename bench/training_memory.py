"""Peak memory of one training run at the largest sizes `attn-tui train` and the lab accept.

The caps in tui_course.specs (length, batch size, threads, train and test sizes)
must keep one run inside 2 GB, so thirty students can share a lab server. This
runs `attn-tui train --json --epochs 1` for every model at the caps and once at
the lesson's defaults (the baseline), each in a fresh wrapper process whose
RUSAGE_CHILDREN peak is the training child's resident memory, and prints the
ratio to the baseline and the share of the 2 GB budget.

    python bench/training_memory.py [--models transformer,rnn,lstm]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

from tui_course import specs

BUDGET_KB = 2 * 1024 * 1024

_WRAPPER = """
import resource, subprocess, sys
status = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)
done = [line for line in status.stdout.splitlines() if '"event":"done"' in line]
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, len(done))
"""


def peak_kb(arguments: list[str], data_dir: str) -> tuple[int, bool]:
    """Peak resident kilobytes of `attn-tui train ARGS` and all it starts; and did it finish."""
    command = [sys.executable, "-m", "tui_course", "train", "--json", "--epochs", "1"]
    command += [*arguments, "--data-dir", data_dir]
    output = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(output[0]), output[1] == "1"


def largest() -> list[str]:
    return [
        "--length",
        str(specs.LENGTH.high),
        "--batch-size",
        str(specs.BATCH_SIZE.high),
        "--threads",
        str(specs.THREADS.high),
        "--train-size",
        str(specs.TRAIN_SIZE.high),
        "--test-size",
        str(specs.TEST_SIZE.high),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(specs.MODELS.choices))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        baseline, finished = peak_kb([], data_dir)
        print(f"baseline (lesson defaults, transformer): {baseline / 1024:.0f} MB, done={finished}")
        results = {}
        for model in args.models.split(","):
            peak, finished = peak_kb(["--model", model, *largest()], data_dir)
            results[model] = peak
            print(
                f"{model} at the caps ({' '.join(largest())}): {peak / 1024:.0f} MB, "
                f"{peak / baseline:.2f}x baseline, {peak / BUDGET_KB:.0%} of 2 GB, done={finished}"
            )
    worst = max(results.values())
    print(json.dumps({"baseline_kb": baseline, "peaks_kb": results, "fits_2gb": worst < BUDGET_KB}))


if __name__ == "__main__":
    main()
