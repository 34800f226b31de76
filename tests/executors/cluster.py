"""A real Ray cluster on this machine for the tests: a head and worker nodes, each a `ray start` of
its own with its own resources and node state folder, all sharing the one container engine. Every
address is 127.0.0.2 and every port is picked free there, so only loopback is used and parallel
sessions do not collide. Stopping kills exactly the processes of the nodes this helper started, found
by the node state folder in their environment (never `ray stop`, which ends every Ray process on the
machine)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).parent / "ray")
HOST = "127.0.0.2"
"""Every node's address: loopback, but not one Ray replaces with the machine's outward address as it
does 127.0.0.1 and localhost (nodes and drivers would then talk over the network interface)."""
SLOTS = "container_slots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def marked(marker: bytes) -> set[int]:
    """The processes whose environment holds `marker`: a node's raylet, its helpers and its workers
    (which Ray starts in sessions of their own, and which outlive a killed raylet for a moment)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if marker in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    found.add(int(entry))
            except OSError:
                continue
    return found


@dataclass
class Node:
    name: str
    slots: int
    state: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def processes(self) -> set[int]:
        return marked(f"RST_NODE_STATE={self.state}".encode())


@dataclass
class RayCluster:
    root: Path
    port: int = field(default_factory=free_port)
    nodes: dict[str, Node] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    token: str = field(default_factory=lambda: uuid.uuid4().hex * 2)
    temp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp")))
    """Ray's session folder: its sockets' paths must stay under 108 bytes, which a pytest temp folder
    (with a worker's `popen-gwN/` in it) does not."""

    def driver_env(self) -> dict[str, str]:
        """For a driver (`rst ... --executor ray`) and every node: this cluster's own auth token, so
        neither a token file in the home folder nor its absence changes how the nodes meet."""
        return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token}

    def env(self, node: Node) -> dict[str, str]:
        return {**self.driver_env(), "RST_NODE_STATE": str(node.state)}

    def _common(self, node: Node) -> list[str]:
        return [
            f"--node-ip-address={HOST}",
            "--num-cpus=1",
            f"--resources={json.dumps({SLOTS: node.slots})}",
            "--object-store-memory=80000000",
            f"--temp-dir={self.temp}",
            f"--dashboard-agent-listen-port={free_port()}",
            f"--dashboard-agent-grpc-port={free_port()}",
            f"--runtime-env-agent-port={free_port()}",
            f"--metrics-export-port={free_port()}",
            "--disable-usage-stats",
        ]

    def start_head(self, slots: int) -> Node:
        node = Node("head", slots, self.root / "state-head")
        args = [RAY, "start", "--head", f"--port={self.port}", "--include-dashboard=false"]
        args += self._common(node)
        node.proc = subprocess.Popen(
            args, env=self.env(node), start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        out, _ = node.proc.communicate(timeout=120)
        assert node.proc.returncode == 0, out.decode(errors="replace")[-3000:]
        self.nodes[node.name] = node
        return node

    def add_node(self, name: str, slots: int) -> Node:
        node = self.nodes.get(name) or Node(name, slots, self.root / f"state-{name}")
        args = [RAY, "start", f"--address={self.address}", "--block", *self._common(node)]
        node.proc = subprocess.Popen(
            args, env=self.env(node), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.nodes[name] = node
        return node

    def alive_nodes(self) -> int:
        """Live nodes as the cluster's GCS sees them (asked by a short-lived driver)."""
        probe = "import ray; ray.init(address=%r, log_to_driver=False); print(sum(n['Alive'] for n in ray.nodes()))"
        out = subprocess.run(
            [sys.executable, "-c", probe % self.address],
            capture_output=True,
            text=True,
            timeout=120,
            env=self.driver_env(),
            cwd=self.root,
        )
        return int(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 and out.stdout.strip() else 0

    def wait_nodes(self, count: int, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while self.alive_nodes() != count:
            assert time.monotonic() < deadline, f"the cluster did not reach {count} live nodes in {timeout:.0f} s"
            time.sleep(2)

    def kill(self, name: str) -> set[int]:
        """SIGKILL a node's raylet, its helpers and its workers at once: a machine lost. Returns the pids."""
        node = self.nodes[name]
        pids = node.processes
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if node.proc is not None:
            node.proc.wait(timeout=30)
        return pids

    def stop(self) -> None:
        for _ in range(3):  # a worker started while the first pass ran is caught by the next
            for name in reversed(list(self.nodes)):
                self.kill(name)
            if not any(node.processes for node in self.nodes.values()):
                break
            time.sleep(1)
        shutil.rmtree(self.temp, ignore_errors=True)
