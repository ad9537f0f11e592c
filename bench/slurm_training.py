"""A training run through Slurm against the local runner, in one invocation.

Starts a one-node Slurm cluster of its own on loopback (tests/slurm/cluster.py: its own
folder, munge key and slurm.conf, nothing machine-wide; needs root and Debian's
slurm-wlm and munge), then runs `attn-tui train --json` twice with the same options:
once with the local runner (scheduler "local", a slot free) and once with
scheduler = "slurm" (srun, cpus = the run's threads). Prints, as ratios Slurm / local:
the wall time from start to the last event, the time from start to the first event,
to the child's "started" line and to the first progress line; and the accuracy and
parameter count of both (must be identical: same child, same seed).

    python bench/slurm_training.py [--epochs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.slurm.cluster import PARTITION, Cluster, missing_reason  # noqa: E402


def run(epochs: int, site: Path, data: Path, env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    command = [sys.executable, "-m", "tui_course", "train", "--json", "--epochs", str(epochs)]
    process = subprocess.Popen(
        [*command, "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        text=True,
        env={**env, "ATTN_TUI_CONFIG": str(site)},
    )
    assert process.stdout is not None
    seen: dict[str, float] = {}
    done: dict[str, float] = {}
    for line in process.stdout:
        event = json.loads(line)
        now = time.perf_counter() - start
        seen.setdefault("first event", now)
        seen.setdefault(event["event"], now)
        if event["event"] == "done":
            done = event
    if process.wait() != 0 or not done:
        raise SystemExit(f"training failed with {site.read_text()}")
    return {
        "wall": time.perf_counter() - start,
        "first event": seen["first event"],
        "started": seen["started"],
        "first progress": seen["batch"],
        "test_accuracy": done["test_accuracy"],
        "params": done["params"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1, help="pairs, alternating the order")
    args = parser.parse_args()
    reason = missing_reason()
    if reason is not None:
        print(f"slurm_training: {reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="attn-slurm-bench-") as folder:
        base = Path(folder)
        cluster = Cluster(base / "cluster", cpus=2, memory_mb=3000)
        (base / "slots").mkdir(mode=0o1777)
        local_site = base / "local.toml"
        local_site.write_text(f'training_slots = 4\nslots_dir = "{base / "slots"}"\n')
        slurm_site = base / "slurm.toml"
        slurm_site.write_text(
            f'scheduler = "slurm"\n[slurm]\npartition = "{PARTITION}"\ncpus = 2\nmem = 2500\n'
        )
        try:
            cluster.start()
            env = {**os.environ, **cluster.env}
            # TensorFlow's files into the page cache first: the first run must not pay it alone
            subprocess.run([sys.executable, "-c", "import keras"], check=True, env=env)
            locals_, slurms = [], []
            for number in range(args.rounds):
                order = [(locals_, local_site), (slurms, slurm_site)]
                for into, site in order if number % 2 == 0 else order[::-1]:
                    into.append(run(args.epochs, site, base / f"data-{number}-{site.stem}", env))
        finally:
            cluster.stop()
    local = {key: statistics.median(r[key] for r in locals_) for key in locals_[0]}
    slurm = {key: statistics.median(r[key] for r in slurms) for key in slurms[0]}
    local["params"], slurm["params"] = int(local["params"]), int(slurm["params"])
    print(
        f"attn-tui train --epochs {args.epochs}: through Slurm (srun) vs the local runner,"
        f" median of {args.rounds} run(s) each"
    )
    print(f"{'':<16}{'local s':>10}{'slurm s':>10}{'ratio':>8}")
    for key in ("wall", "first event", "started", "first progress"):
        ratio = slurm[key] / local[key]
        print(f"{key:<16}{local[key]:>10.2f}{slurm[key]:>10.2f}{ratio:>8.2f}")
    print(
        f"test accuracy: local {local['test_accuracy']:.4f}, slurm {slurm['test_accuracy']:.4f};"
        f" parameters: local {local['params']:,}, slurm {slurm['params']:,}"
    )
    same = local["test_accuracy"] == slurm["test_accuracy"] and local["params"] == slurm["params"]
    print("same result" if same else "DIFFERENT RESULTS")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
