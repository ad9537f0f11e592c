"""The class report under one student's attacks, against a clean drop-box, as ratios.

Baseline: 30 students x 21 valid submissions. Then, in the same invocation, one
attacking account (nobody, when run as root) adds to a copy of it: a flood of
empty files, one valid 508 KB file with hard links, and files naming many quiz
ids not in the course. Printed: time and peak memory of build_report + the JSON
output for each, the ratio to the baseline, and how many of the honest students'
submissions were counted (all of them, or the attack worked).

    python bench/class_report.py [--flood 150000] [--links 1999] [--unknown 300000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUIZZES = ["checkpoint", "exercises", "understanding"]
ATTACKER = 65534  # nobody


def submission(user: str, **extra: object) -> bytes:
    quiz = {
        "id": "checkpoint",
        "questions": 5,
        "state": "finished",
        "first_try": 3,
        "mastered": 4,
        "tries": 7,
        "hints": 0,
        "reveals": 0,
        "seconds": 12.5,
        "last_activity": "2026-11-30T08:00:00+00:00",
    }
    payload = {
        "format": "attn-tui-submission",
        "format_version": 1,
        "user": user,
        "app_version": "0.1.0",
        "submitted_at": "2026-11-30T08:00:00+00:00",
        "quizzes": [quiz],
        "lessons": [{"id": "why", "read": True, "last_activity": None}],
        **extra,
    }
    return json.dumps(payload).encode()


def honest(dropbox: Path) -> None:
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    for student in range(30):
        for number in range(21):
            # one account plays the 30 students: they differ by file, the owner check
            # passes for the account's own name only, so all name it
            (dropbox / f"s{student}-{number}.json").write_bytes(submission(me))


def attacker_file(path: Path, data: bytes = b"") -> None:
    path.write_bytes(data)
    if os.geteuid() == 0:
        os.chown(path, ATTACKER, -1)


MEASURE = """
import json, resource, sys, time
from pathlib import Path
from tui_course.classroom.report import build_report, report_json
start = time.perf_counter()
report = build_report(Path(sys.argv[1]), sys.argv[2].split(","))
text = json.dumps(report_json(report))
seconds = time.perf_counter() - start
import os, pwd
me = pwd.getpwuid(os.geteuid()).pw_name
counted = report.students[me].submissions if me in report.students else 0  # the honest ones
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "rss_mib": peak, "json_bytes": len(text),
                  "counted": counted, "partial": len(report.partial())}))
"""


def measure(dropbox: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", MEASURE, str(dropbox), ",".join(QUIZZES)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--flood", type=int, default=150_000)
    parser.add_argument("--links", type=int, default=1999)
    parser.add_argument("--unknown", type=int, default=300_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        base = Path(name) / "clean"
        base.mkdir()
        honest(base)
        runs = {"clean": measure(base)}
        flood = Path(name) / "flood"
        shutil.copytree(base, flood)
        for number in range(args.flood):
            attacker_file(flood / f"junk-{number:07d}")
        runs[f"flood {args.flood:,}"] = measure(flood)
        shutil.rmtree(flood)
        links = Path(name) / "links"
        shutil.copytree(base, links)
        big = links / "big.json"
        attacker_file(big, submission("nobody", padding="x" * (508 * 1024)))
        for number in range(args.links):
            os.link(big, links / f"link-{number}.json")
        runs[f"{args.links:,} hard links"] = measure(links)
        shutil.rmtree(links)
        unknown = Path(name) / "unknown"
        shutil.copytree(base, unknown)
        per_file = 999
        for number in range(args.unknown // per_file + 1):
            quizzes = [
                {
                    "id": f"fake-{number}-{index}",
                    "questions": 1,
                    "state": "not started",
                    "first_try": None,
                    "mastered": 0,
                    "tries": 0,
                    "hints": 0,
                    "reveals": 0,
                    "seconds": 0,
                    "last_activity": None,
                }
                for index in range(per_file)
            ]
            attacker_file(unknown / f"ids-{number}.json", submission("nobody", quizzes=quizzes))
        runs[f"{args.unknown:,} unknown ids"] = measure(unknown)
    clean = runs["clean"]
    print(f"{'drop-box':24} {'seconds':>8} {'ratio':>6} {'peak MiB':>9} {'JSON KB':>8} counted")
    for label, run in runs.items():
        print(
            f"{label:24} {run['seconds']:8.2f} {run['seconds'] / clean['seconds']:6.2f}"
            f" {run['rss_mib']:9.1f} {run['json_bytes'] / 1024:8.0f} {run['counted']:.0f}"
            f" of {clean['counted']:.0f}"
        )
    honest_counted = all(run["counted"] == clean["counted"] for run in runs.values())
    print("every honest submission counted under every attack:", "yes" if honest_counted else "NO")
    return 0 if honest_counted else 1


if __name__ == "__main__":
    raise SystemExit(main())
