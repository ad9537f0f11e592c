"""`python -m tui_course.listings.child FILE CPU_SECONDS`: run a Keras listing, then exit.

Started by tui_course.listings.run for listings that need the train extra. Like the
training child, it dies with its parent, caps TensorFlow's threads and lowers its
priority before anything heavy is imported; then it runs the file as __main__.
"""

from __future__ import annotations

# First, before any other import: a parent that dies from here on takes this child along.
from tui_course.training.lifeline import hold_on_to_parent

hold_on_to_parent()

# isort: split
import contextlib
import os
import resource
import runpy
import sys

THREADS = 2


def main() -> int:
    path, cpu_seconds = sys.argv[1], int(sys.argv[2])
    for name in ("OMP_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
        os.environ[name] = str(THREADS)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    with contextlib.suppress(OSError):
        os.nice(10)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
