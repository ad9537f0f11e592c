"""How long a pending Slurm job outlives an `attn-tui train` that dies, against Slurm's own cancel.

The Slurm issue allows a job to outlive its app by 10 s. The tests in tests/slurm wait
for the job to leave squeue without a clock (a loaded machine must not fail them); this
script is where that bound is measured, quiet and busy.

Starts a one-node Slurm cluster of its own on loopback (tests/slurm/cluster.py: its own
folder, munge key and slurm.conf, nothing machine-wide; needs root and Debian's
slurm-wlm and munge) and a root job holding both CPUs, so every job after it waits.
Then, alternating, in this one invocation:
- direct (the baseline): `srun ... sleep` waits in the queue; one `scancel` of it, and
  the time until squeue no longer lists it. This is what Slurm itself takes;
- attn-tui: `attn-tui train` with scheduler = "slurm" says it is waiting for Slurm; the
  app is killed (SIGKILL, SIGHUP, SIGTERM in turn), and the time from the signal until
  squeue no longer lists its job. Its watcher (tui_course.training.slurm_job) has to
  notice the death, find the job by its token and cancel it.
Prints the median and the worst of each, the ratio attn-tui / direct, and whether the
worst stayed within the 10 s bound.

    python bench/slurm_cancel.py [--rounds 3] [--busy]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.check_start import burners  # noqa: E402
from tests.slurm.cluster import PARTITION, Cluster, missing_reason  # noqa: E402

BOUND = 10.0  # seconds: the Slurm issue's bound for a job outliving its app
DEATHS = (signal.SIGKILL, signal.SIGHUP, signal.SIGTERM)
POLL = 0.05  # seconds between squeue calls while timing


def listed(cluster: Cluster, name: str) -> list[str]:
    """States squeue lists for jobs of this name."""
    return cluster.run("squeue", "-h", "-n", name, "-o", "%T").stdout.split()


def wait(condition: object, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"slurm_cancel: timed out waiting for {what}")
        time.sleep(POLL)


def gone_after(cluster: Cluster, name: str, start: float) -> float:
    wait(lambda: not listed(cluster, name), f"{name} to leave squeue")
    return time.perf_counter() - start


def direct(cluster: Cluster, env: dict[str, str]) -> float:
    name = "attn-bench-direct"
    srun = subprocess.Popen(
        ["srun", f"--job-name={name}", "--cpus-per-task=1", "--mem=100", "sleep", "600"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait(lambda: listed(cluster, name) == ["PENDING"], "the direct job to wait")
    start = time.perf_counter()
    cluster.run("scancel", "-n", name)
    took = gone_after(cluster, name, start)
    srun.wait(60)
    return took


def through_app(cluster: Cluster, env: dict[str, str], data: Path, death: signal.Signals) -> float:
    tiny = ["--epochs", "1", "--threads", "1", "--train-size", "64", "--test-size", "32"]
    app = subprocess.Popen(
        [sys.executable, "-m", "tui_course", "train", *tiny, "--data-dir", str(data)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert app.stdout is not None
    waiting = threading.Event()

    def read() -> None:
        for line in app.stdout:  # type: ignore[union-attr]
            if "waiting for Slurm" in line:
                waiting.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait(waiting.is_set, "the app's waiting line")
    if listed(cluster, "attn-tui-train") != ["PENDING"]:
        raise SystemExit("slurm_cancel: the app's job is not pending")
    start = time.perf_counter()
    app.send_signal(death)
    took = gone_after(cluster, "attn-tui-train", start)
    app.wait(60)
    reader.join(10)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one direct + 3 deaths")
    parser.add_argument("--busy", action="store_true", help="two CPU burners during the run")
    args = parser.parse_args()
    reason = missing_reason()
    if reason is not None:
        print(f"slurm_cancel: {reason}", file=sys.stderr)
        return 1
    directs: list[float] = []
    apps: dict[signal.Signals, list[float]] = {death: [] for death in DEATHS}
    with tempfile.TemporaryDirectory(prefix="attn-slurm-bench-") as folder:
        base = Path(folder)
        cluster = Cluster(base / "cluster", cpus=2, memory_mb=3000)
        site = base / "slurm.toml"
        site.write_text(
            f'scheduler = "slurm"\n[slurm]\npartition = "{PARTITION}"\ncpus = 1\nmem = 1400\n'
        )
        env = {
            **os.environ,
            **cluster.env,
            "ATTN_TUI_CONFIG": str(site),
            "ATTN_TUI_DATA_DIR": str(base / "data"),
        }
        hog = None
        try:
            cluster.start()
            hog = subprocess.Popen(
                ["srun", "--job-name=hog", "--cpus-per-task=2", "--mem=100", "sleep", "900"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait(lambda: listed(cluster, "hog") == ["RUNNING"], "the hog job to run")
            with burners(2 if args.busy else 0):
                for number in range(args.rounds):
                    directs.append(direct(cluster, env))
                    for death in DEATHS:
                        data = base / f"d-{number}-{death.name}"
                        apps[death].append(through_app(cluster, env, data, death))
        finally:
            if hog is not None:
                cluster.run("scancel", "-n", "hog")
                hog.wait(30)
            cluster.stop()
    load = os.getloadavg()[0]
    mode = "busy (two CPU burners of its own)" if args.busy else "no burners of its own"
    print(f"a pending job after its app dies, {args.rounds} round(s), {mode}, load {load:.1f}")
    print(f"{'':<22}{'median s':>10}{'worst s':>10}{'ratio':>8}")
    base_median = statistics.median(directs)
    print(f"{'direct scancel':<22}{base_median:>10.2f}{max(directs):>10.2f}{1.0:>8.2f}")
    worst = 0.0
    for death, times in apps.items():
        median = statistics.median(times)
        worst = max(worst, max(times))
        label = f"attn-tui, {death.name}"
        print(f"{label:<22}{median:>10.2f}{max(times):>10.2f}{median / base_median:>8.2f}")
    verdict = "within" if worst <= BOUND else "OVER"
    print(f"worst through attn-tui: {worst:.2f} s, {verdict} the {BOUND:.0f} s bound")
    return 0 if worst <= BOUND else 1


if __name__ == "__main__":
    raise SystemExit(main())
