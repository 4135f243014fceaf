"""A real Slurm on loopback for tests: munged, slurmctld and one slurmd per node (multiple-slurmd).

Everything lives in a temporary directory: its own munge key and socket, a
generated slurm.conf, state, spool and logs. ``SlurmCluster.env()`` is the
environment that points the Slurm client commands at it. ``stop()`` ends every
daemon it started, by PID.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "salloc", "srun", "scontrol", "scancel", "squeue")


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None and not Path("/usr/sbin", b).exists()]


def _which(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _port_range(count: int) -> int:
    """The first of ``count`` consecutive loopback ports that are free right now."""
    for _ in range(200):
        first = random.randrange(20000, 40000)
        socks = []
        try:
            for port in range(first, first + count):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no {count} consecutive free ports")


CONF = """\
ClusterName=sweepgate
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmUser={user}
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={root}/munge/socket
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool/%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd-%n.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
InactiveLimit=0
KillWait=2
OverTimeLimit=0
MinJobAge=600
MessageTimeout=20
NodeName=n[1-{nodes}] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[{first_port}-{last_port}] CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName={partition} Nodes=n[1-{nodes}] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
"""


class SlurmCluster:
    def __init__(self, root: Path, nodes: int = 6, partition: str = "sweepgate"):
        self.root, self.nodes, self.partition = Path(root), nodes, partition
        self.conf = self.root / "slurm.conf"

    def env(self) -> dict[str, str]:
        return {"SLURM_CONF": str(self.conf)}

    def _run(self, *argv: str) -> None:
        subprocess.run(argv, check=True, env={**os.environ, **self.env()}, capture_output=True, timeout=60)

    def start(self) -> "SlurmCluster":
        for sub in ("munge", "state", "spool", "log"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "munge").chmod(0o700)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        for i in range(1, self.nodes + 1):
            (self.root / "spool" / f"n{i}").mkdir(parents=True, exist_ok=True)
        # slurmctld, then one slurmd per node on consecutive ports (Slurm wants a range).
        ctld_port = _port_range(self.nodes + 1)
        first = ctld_port + 1
        self.conf.write_text(CONF.format(ctld_port=ctld_port, user=os.environ.get("USER") or "root",
                                         root=self.root, nodes=self.nodes, first_port=first,
                                         last_port=first + self.nodes - 1, partition=self.partition))
        try:
            self._start_daemons(key)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_daemons(self, key: Path) -> None:
        m = self.root / "munge"
        self._run(_which("munged"), "--force", f"--key-file={key}", f"--socket={m}/socket",
                  f"--log-file={self.root}/log/munged.log", f"--pid-file={m}/munged.pid", f"--seed-file={m}/seed")
        self._run(_which("slurmctld"), "-f", str(self.conf))
        for i in range(1, self.nodes + 1):
            self._run(_which("slurmd"), "-f", str(self.conf), "-N", f"n{i}")
        self.wait_idle()

    def wait_idle(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        out = ""
        while time.monotonic() < deadline:
            proc = subprocess.run(["sinfo", "-h", "-o", "%D %t"], env={**os.environ, **self.env()},
                                  capture_output=True, text=True)
            out = proc.stdout.strip()
            if out == f"{self.nodes} idle":
                return
            time.sleep(0.5)
        raise RuntimeError(f"Slurm nodes not idle after {timeout}s: {out!r}; see {self.root}/log")

    def scontrol_job(self, name: str) -> dict[str, str]:
        """`scontrol show job` of the (last) job with this name, as key=value pairs."""
        proc = subprocess.run(["squeue", "-h", "--states=all", "-n", name, "-o", "%i"],
                              env={**os.environ, **self.env()}, capture_output=True, text=True, check=True)
        ids = sorted(proc.stdout.split(), key=int)
        if not ids:
            return {}
        show = subprocess.run(["scontrol", "show", "job", "-o", ids[-1]], env={**os.environ, **self.env()},
                              capture_output=True, text=True, check=True).stdout
        return dict(part.split("=", 1) for part in show.split() if "=" in part)

    def _pids(self) -> list[int]:
        files = sorted(self.root.glob("slurmd-*.pid")) + [self.root / "slurmctld.pid",
                                                           self.root / "munge" / "munged.pid"]
        pids = []
        for f in files:
            try:
                pids.append(int(f.read_text().strip()))
            except (OSError, ValueError):
                continue
        return pids

    def stop(self) -> None:
        pids = self._pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.2)
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
