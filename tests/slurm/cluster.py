"""A one-node Slurm cluster on loopback that lives in one folder and leaves nothing behind.

Unlike a site install it writes no /etc/slurm or /etc/munge: munged gets its own key,
socket and seed under the folder, slurm.conf names that socket (AuthInfo) and its own
state, spool, logs and free ports, and clients find it through SLURM_CONF. Stopping it
ends the three daemons by the pids they wrote; removing the folder removes the rest.

Needs root (slurmd runs jobs as their users). Used by tests/slurm and bench/, and by hand:

    python -m tests.slurm.cluster start DIR     # prints the export SLURM_CONF=... line
    python -m tests.slurm.cluster stop DIR
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

NODE = "attnnode"
PARTITION = "attn"
DAEMONS = ("munged", "slurmctld", "slurmd")
START_TIMEOUT = 60.0


def missing_reason() -> str | None:
    """Why a cluster cannot be started here, or None."""
    if os.geteuid() != 0:
        return "needs root: slurmd runs each job as its own user"
    for program in ("munged", "slurmctld", "slurmd", "srun", "squeue", "sinfo"):
        if shutil.which(program, path=os.environ.get("PATH", "") + ":/usr/sbin") is None:
            return f"{program} is not installed (Debian: apt-get install slurm-wlm munge)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _sbin(program: str) -> str:
    return shutil.which(program, path=os.environ.get("PATH", "") + ":/usr/sbin") or program


@dataclass
class Cluster:
    root: Path
    cpus: int = 2
    memory_mb: int = 2048

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """What a client needs to find this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def pidfile(self, daemon: str) -> Path:
        return self.root / f"{daemon}.pid"

    def write_config(self) -> None:
        for sub in ("state", "spool", "munge"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        # every user's srun reads the config and talks to munged's socket
        self.root.chmod(0o755)
        (self.root / "munge").chmod(0o755)
        (self.root / "state").chmod(0o700)
        ctld_port, node_port = _free_port(), _free_port()
        self.conf.write_text(
            f"""ClusterName=attntest
SlurmctldHost={socket.gethostname().split(".")[0]}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={node_port}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={self.root}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={self.root}/state
SlurmdSpoolDir={self.root}/spool
SlurmctldPidFile={self.pidfile("slurmctld")}
SlurmdPidFile={self.pidfile("slurmd")}
SlurmctldLogFile={self.root}/slurmctld.log
SlurmdLogFile={self.root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=1
JobAcctGatherParams=OverMemoryKill
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=2
KillWait=2
InactiveLimit=0
MessageTimeout=5
NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname().split(".")[0]} \
CPUs={self.cpus} RealMemory={self.memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
""",
            encoding="utf-8",
        )
        self.conf.chmod(0o644)
        key = self.root / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
        key.chmod(0o600)

    def _running(self, daemon: str) -> bool:
        try:
            os.kill(int(self.pidfile(daemon).read_text().strip()), 0)
        except (OSError, ValueError):
            return False
        return True

    def start_munge(self) -> None:
        if self._running("munged"):
            return
        munge = self.root / "munge"
        subprocess.run(
            [
                _sbin("munged"),
                "--force",
                f"--socket={munge}/munge.socket",
                f"--key-file={munge}/munge.key",
                f"--pid-file={self.pidfile('munged')}",
                f"--log-file={self.root}/munged.log",
                f"--seed-file={munge}/munged.seed",
            ],
            check=True,
            capture_output=True,
        )

    def start_controller(self) -> None:
        if not self._running("slurmctld"):
            subprocess.run([_sbin("slurmctld"), "-f", str(self.conf)], check=True, env=self._env())

    def start_node(self) -> None:
        if not self._running("slurmd"):
            subprocess.run(
                [_sbin("slurmd"), "-f", str(self.conf), "-N", NODE], check=True, env=self._env()
            )

    def _env(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    def run(self, *command: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(command), env=self._env(), capture_output=True, text=True, timeout=timeout
        )

    def node_state(self) -> str:
        done = self.run("sinfo", "-h", "-n", NODE, "-o", "%t")
        return done.stdout.strip() if done.returncode == 0 else ""

    def wait_until_idle(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.node_state()
            if state in ("idle", "mix", "alloc"):
                return
            if state in ("drain", "drng", "down", "down*"):
                self.run("scontrol", "update", f"nodename={NODE}", "state=resume")
            time.sleep(0.2)  # polling a daemon's start: there is nothing to wait on
        raise RuntimeError(f"slurm node not up after {timeout:g} s: {self.logs_tail()}")

    def start(self) -> None:
        self.write_config()
        self.start_munge()
        self.start_controller()
        self.start_node()
        self.wait_until_idle()

    def stop_daemon(self, daemon: str, timeout: float = 15.0) -> None:
        try:
            pid = int(self.pidfile(daemon).read_text().strip())
        except (OSError, ValueError):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.pidfile(daemon).unlink()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.run("scancel", "--partition", PARTITION, timeout=10)
        for daemon in ("slurmd", "slurmctld", "munged"):
            self.stop_daemon(daemon)

    def logs_tail(self) -> str:
        tails = []
        for name in ("slurmctld.log", "slurmd.log", "munged.log"):
            with contextlib.suppress(OSError):
                lines = (self.root / name).read_text(errors="replace").splitlines()[-5:]
                tails.append(f"{name}: " + " | ".join(lines))
        return "; ".join(tails)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.slurm.cluster start|stop DIR", file=sys.stderr)
        return 2
    reason = missing_reason()
    if reason is not None:
        print(f"cluster: {reason}", file=sys.stderr)
        return 1
    cluster = Cluster(Path(argv[1]).resolve())
    if argv[0] == "start":
        cluster.start()
        print(f"export SLURM_CONF={cluster.conf}")
    else:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
