"""What a worker node runs for a remote executor: one piece of work on the node's own container
engine, its result returned as a value (a dict), never written to the driver's run directory.

Every container a worker process makes carries `rst-synth.ray-owner=<host>.<pid>.<start>`, and the
process leaves a lease file of that name in the node's state folder. A worker that dies mid-task
(killed, its node lost) cannot remove its containers; the next work on that node, or the node once it
returns, finds the leases whose process is gone and prunes their containers. No shared filesystem:
the state folder is the node's own (RST_NODE_STATE, default the temp folder).
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rst_synth.agents import RESULT, TRAJECTORY, AttemptLimits, make_agent, run_attempt
from rst_synth.executors.base import AgentSpec, WorkSpec
from rst_synth.proposers.base import ProposalError
from rst_synth.proposers.discovery import discover
from rst_synth.sandbox import Sandbox, SandboxError, make_sandbox
from rst_synth.task import Task
from rst_synth.validator import Validator

OWNER_LABEL = "rst-synth.ray-owner"
"""The worker process that made a container: `<host>.<pid>.<process start tick>`."""
STATE_ENV = "RST_NODE_STATE"
"""The node's own folder for leases, agent caches and config files sent with the work."""


class NodeResult(BaseModel):
    """One piece of work's answer, as it travels back to the driver."""

    key: str
    """The work's stable key, as the driver sent it."""
    node: str
    owner: str
    """The worker process (its owner label)."""
    seconds: float = 0.0
    pruned: int = 0
    """Containers of dead workers removed before the work started."""
    value: dict[str, Any] | None = None
    error: str | None = None
    """"proposal" (a ProposalError: `reason`, `detail`) or "sandbox" (the engine failed: `detail`)."""
    reason: str = ""
    detail: str = ""


def run(
    kind: str,
    key: str,
    spec: dict[str, Any],
    task: dict[str, Any] | None,
    parent: dict[str, Any] | None,
    args: dict[str, Any],
    *,
    node: str,
) -> dict[str, Any]:
    """Do `kind` ("validate", "discover", "attempt" or "prune") and return a dumped NodeResult."""
    started = time.monotonic()
    result = NodeResult(key=key, node=node, owner=owner_id())
    work = WorkSpec.model_validate(spec)
    try:
        result.value = asyncio.run(_work(kind, work, _task(task), _task(parent), args, result))
    except ProposalError as exc:
        result.error, result.reason, result.detail = "proposal", exc.reason.value, exc.detail
    except SandboxError as exc:
        result.error, result.detail = "sandbox", str(exc)[:2000]
    result.seconds = round(time.monotonic() - started, 3)
    return result.model_dump(mode="json")


def _task(raw: dict[str, Any] | None) -> Task | None:
    return None if raw is None else Task.model_validate(raw)


async def _work(
    kind: str, work: WorkSpec, task: Task | None, parent: Task | None, args: dict[str, Any], result: NodeResult
) -> dict[str, Any]:
    result.pruned = await prune_dead_owners(work.backend)
    if kind == "prune":
        return {}
    if task is None:
        raise ValueError(f"{kind}: no task sent")
    sandbox = open_sandbox(work)
    try:
        if kind == "validate":
            report = await Validator(sandbox, work.validator).validate(task, parent)
            return report.model_dump(mode="json")
        if kind == "discover":
            return (await discover(sandbox, task)).model_dump(mode="json")
        if kind == "attempt":
            return await _attempt(sandbox, work.agent, task, args)
        raise ValueError(f"unknown kind of work {kind!r}")
    finally:
        await sandbox.close()


async def _attempt(sandbox: Sandbox, spec: AgentSpec | None, task: Task, args: dict[str, Any]) -> dict[str, Any]:
    """The attempt runs into a scratch folder; its two files travel back as JSON values."""
    if spec is None:
        raise ValueError("attempt: no agent in the work spec")
    agent = make_agent(spec.name, **node_options(spec))
    try:
        with tempfile.TemporaryDirectory(prefix="rst-attempt-") as scratch:
            out = Path(scratch) / "attempt"
            limits = AttemptLimits.model_validate(args.get("limits") or {})
            result = await run_attempt(
                task, agent, sandbox, attempt=int(args["attempt"]), seed=int(args["seed"]), out_dir=out, limits=limits
            )
            files = {name: json.loads((out / name).read_text(encoding="utf-8")) for name in (TRAJECTORY, RESULT)}
    finally:
        await agent.close()
    return {"agent": agent.name, "model": agent.model, "result": result.model_dump(mode="json"), "files": files}


def node_options(spec: AgentSpec) -> dict[str, Any]:
    """The agent's options with the driver's paths replaced by this node's: files sent with the work
    are written here (by content), and a response cache lives in the node's state folder."""
    options = dict(spec.options)
    for option, content in spec.files.items():
        path = state_dir() / "files" / hashlib.sha256(content.encode()).hexdigest()[:16]
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        options[option] = str(path)
    if options.get("cache_dir"):
        options["cache_dir"] = str(
            state_dir() / "llm-cache" / hashlib.sha256(str(options["cache_dir"]).encode()).hexdigest()[:16]
        )
    return options


def open_sandbox(work: WorkSpec) -> Sandbox:
    """The node's sandbox, its containers labelled with this process as their owner (lease taken)."""
    owner = owner_id()
    leases = state_dir() / "owners"
    leases.mkdir(parents=True, exist_ok=True)
    (leases / owner).touch()
    return make_sandbox(work.backend, labels={**work.labels, OWNER_LABEL: owner})


async def prune_dead_owners(backend: str) -> int:
    """Remove the containers of this host's worker processes that are gone; returns how many."""
    leases = state_dir() / "owners"
    if not leases.is_dir():
        return 0
    removed = 0
    with open(state_dir() / "prune.lock", "a") as lock:  # one pruner a node at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        for lease in sorted(leases.iterdir()):
            if owner_alive(lease.name):
                continue
            sandbox = make_sandbox(backend, labels={OWNER_LABEL: lease.name})
            try:
                removed += await sandbox.prune()
            finally:
                await sandbox.close()
            lease.unlink(missing_ok=True)
    return removed


def state_dir() -> Path:
    return Path(os.environ.get(STATE_ENV) or Path(tempfile.gettempdir()) / "rst-synth-node")


def owner_id(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}.{pid}.{_start_tick(pid)}"


def owner_alive(owner: str) -> bool:
    """Whether the process an owner label names still runs (a lease of another host: assumed so)."""
    name, pid, start = _parts(owner)
    if name != socket.gethostname():
        return True
    return pid is not None and _start_tick(pid) == start


def _parts(owner: str) -> tuple[str, int | None, str]:
    head, _, start = owner.rpartition(".")
    name, _, pid = head.rpartition(".")
    return name, int(pid) if pid.isdigit() else None, start


def _start_tick(pid: int) -> str:
    """The process's start time in clock ticks since boot ("gone" when there is no such process): a
    pid reused by another process does not keep a dead worker's lease alive."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return "gone"
        except PermissionError:
            pass
        return "0"  # no /proc: the pid alone tells
    return stat[stat.rindex(")") + 2 :].split()[19]
