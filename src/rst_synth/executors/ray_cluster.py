"""The `ray` executor: validations, discoveries and agent attempts run as Ray tasks on worker nodes,
each node with its own container engine; the driver gets values back and stays the only writer.

- Scheduling: every node offers a custom resource `container_slots` (how many containers it runs at
  once); a validation asks for `validation_slots` of them, a discovery or an attempt for one, so a
  2-core and a 64-core node each get work in proportion.
- Task files travel with the work, content-addressed: each distinct task is put into Ray's object
  store once and fetched (and kept) by the nodes that use it; images are built on the node that runs
  the work, by its own engine, and cached there.
- Worker loss: Ray retries the task elsewhere (`max_retries`); the containers the dead worker left are
  pruned by the next work on its node, and by the prune every node runs when a driver connects.
- Work is keyed by the candidate's stable id (or the eval attempt's): a second submission of a key
  still in flight joins the first, and a result is taken only for the key it answers.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any, cast

import ray
from ray.exceptions import RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from rst_synth.agents import Agent, AttemptLimits, AttemptResult
from rst_synth.agents.attempt import write_attempt
from rst_synth.executors.base import WorkSpec, task_digest
from rst_synth.executors.node import NodeResult, owner_alive, prune_dead_owners, run, state_dir
from rst_synth.proposers.base import ProposalError
from rst_synth.proposers.discovery import Discovery
from rst_synth.sandbox import SandboxError
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, Reason, ValidationReport, Verdict

log = logging.getLogger(__name__)

RESOURCE = "container_slots"
"""The custom resource every worker node declares: `ray start --resources '{"container_slots": N}'`."""
_TaskRef = ray.ObjectRef[dict[str, Any] | None]
"""A task dumped to a dict, in the object store (a remote function's argument resolves it)."""
CLEANUP_SEC = 30.0
"""How long `close` waits for cancelled work to remove its containers."""
OBJECT_CACHE = 512
"""Distinct tasks kept referenced in the object store (parents are sent once for all their children)."""


@ray.remote(num_cpus=0)
def _on_node(
    kind: str,
    key: str,
    spec: dict[str, Any],
    task: dict[str, Any] | None,
    parent: dict[str, Any] | None,
    args: dict[str, Any],
) -> dict[str, Any]:
    return run(kind, key, spec, task, parent, args, node=ray.get_runtime_context().get_node_id())


class RayExecutor:
    """Connects to a Ray cluster (or starts a local Ray instance) and runs container work there."""

    name = "ray"

    def __init__(
        self,
        spec: WorkSpec,
        *,
        address: str | None = None,
        slots: int | None = None,
        validation_slots: int = 2,
        max_retries: int = 3,
    ) -> None:
        self.spec = spec.model_copy(
            update={"validator": spec.validator.model_copy(update={"max_containers": validation_slots})}
        )
        self.validation_slots, self.max_retries = validation_slots, max_retries
        self._spec = self.spec.model_dump(mode="json")
        self._owns_connection = _connect(address, slots)
        total = int(ray.cluster_resources().get(RESOURCE, 0))  # type: ignore[no-untyped-call]
        if total < validation_slots:
            where = address or "the local Ray instance"
            self._disconnect()
            raise ValueError(
                f"executor ray: {where} offers {total} {RESOURCE}, a validation needs {validation_slots}; "
                f"start workers with: ray start --address ADDR --resources '{{\"{RESOURCE}\": N}}'"
            )
        self.slots = total
        """The cluster's container slots when the driver connected."""
        self._objects: OrderedDict[str, _TaskRef] = OrderedDict()
        self._inflight: dict[str, asyncio.Future[NodeResult]] = {}
        self._cancelled: list[ray.ObjectRef[dict[str, Any]]] = []
        self._address = address
        self.placements: dict[str, tuple[str, float]] = {}
        """Key -> the node that answered it and the seconds the work took there."""
        self.pruned = self._prune_nodes()

    def capacity(self, kind: str) -> int | None:
        """From the cluster's container slots when the driver connected."""
        return max(1, self.slots // self._slots_of(kind))

    def _slots_of(self, kind: str) -> int:
        return self.validation_slots if kind == "validate" else 1

    # -- the work -------------------------------------------------------------------------------

    async def validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> ValidationReport:
        key = key or f"validate-{task_digest(task)[:16]}"
        try:
            result = await self._run("validate", key, task, parent, {})
        except SandboxError as exc:
            return _error_report(task, parent, str(exc))
        if result.error or result.value is None:
            return _error_report(task, parent, result.detail or "no report")
        return ValidationReport.model_validate(result.value)

    async def discover(self, parent: Task, *, key: str | None = None) -> Discovery:
        key = key or f"discover-{parent.workflow_hash()}"
        result = await self._run("discover", key, parent, None, {})
        if result.error == "proposal":
            raise ProposalError(Reason(result.reason), result.detail)
        if result.error or result.value is None:
            raise SandboxError(f"discovery of {parent.name} on node {result.node[:12]}: {result.detail}")
        return Discovery.model_validate(result.value)

    async def attempt(
        self,
        task: Task,
        agent: Agent,
        *,
        attempt: int,
        seed: int,
        out_dir: Path,
        limits: AttemptLimits | None = None,
        key: str | None = None,
    ) -> AttemptResult:
        if self.spec.agent is None:
            raise ValueError("executor ray: attempts need the agent in the work spec (WorkSpec.agent)")
        key = key or f"attempt-{task_digest(task)[:16]}-{attempt}"
        args = {"attempt": attempt, "seed": seed, "limits": (limits or AttemptLimits()).model_dump(mode="json")}
        result = await self._run("attempt", key, task, None, args)
        if result.error or result.value is None:
            raise SandboxError(f"attempt {key} on node {result.node[:12]}: {result.detail}")
        value = result.value
        if (value["agent"], value["model"]) != (agent.name, agent.model):
            raise ValueError(f"executor ray: the nodes ran {value['agent']} ({value['model']}), not {agent.name}")
        write_attempt(out_dir, value["files"])  # the driver writes, stage then rename, as a local attempt does
        return AttemptResult.model_validate(value["result"])

    async def close(self) -> None:
        """Cancel what is in flight and give the cancelled work time to remove its containers before
        the connection goes (disconnecting ends the driver's tasks at once, cleanup or not)."""
        pending = list(self._inflight.values())
        for future in pending:
            future.cancel()
        if pending:  # each cancellation reaches _submit, which cancels its Ray task
            await asyncio.wait(pending, timeout=5)
        if self._cancelled:
            await asyncio.wait([asyncio.ensure_future(_settle(ref)) for ref in self._cancelled], timeout=CLEANUP_SEC)
        self._objects.clear()
        local = self._owns_connection and not self._address
        self._disconnect()
        if local:  # this machine was the only node: what a worker killed by the shutdown left is ours to prune
            await _prune_after_shutdown(self.spec.backend)

    # -- plumbing -------------------------------------------------------------------------------

    async def _run(self, kind: str, key: str, task: Task, parent: Task | None, args: dict[str, Any]) -> NodeResult:
        """One piece of work by key: a key already in flight is joined, not run twice."""
        running = self._inflight.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future = asyncio.ensure_future(self._submit(kind, key, task, parent, args))
        self._inflight[key] = future
        try:
            return await future
        finally:
            if self._inflight.get(key) is future:
                del self._inflight[key]

    async def _submit(self, kind: str, key: str, task: Task, parent: Task | None, args: dict[str, Any]) -> NodeResult:
        ref = _on_node.options(
            name=f"{kind}:{key}"[:200],
            resources={RESOURCE: self._slots_of(kind)},
            max_retries=self.max_retries,
            retry_exceptions=False,
        ).remote(kind, key, self._spec, self._put(task), self._put(parent) if parent else None, args)
        try:
            raw = await ref
        except asyncio.CancelledError:
            ray.cancel(ref)  # KeyboardInterrupt in the worker: its sandbox removes its containers
            self._cancelled.append(ref)
            raise
        except RayError as exc:
            raise SandboxError(f"ray task {key} failed after {self.max_retries} retries: {_first_line(exc)}") from None
        result = NodeResult.model_validate(raw)
        if result.key != key:  # never take an answer for other work
            raise SandboxError(f"ray task {key} answered for {result.key}")
        self.placements[key] = (result.node, result.seconds)
        log.info(
            "%s %s ran on node %s in %.1f s",
            kind,
            key,
            result.node[:12],
            result.seconds,
            extra={
                "fields": {
                    "executor": "ray",
                    "kind": kind,
                    "key": key,
                    "node": result.node,
                    "owner": result.owner,
                    "seconds": result.seconds,
                    "pruned": result.pruned,
                }
            },
        )
        return result

    def _put(self, task: Task) -> _TaskRef:
        """The task's object, put once per content and reused for every piece of work that needs it."""
        digest = task_digest(task)
        ref = self._objects.get(digest)
        if ref is None:
            ref = cast(_TaskRef, ray.put(task.model_dump()))
            self._objects[digest] = ref
            while len(self._objects) > OBJECT_CACHE:
                self._objects.popitem(last=False)
        else:
            self._objects.move_to_end(digest)
        return ref

    def _prune_nodes(self) -> int:
        """Every live node removes what dead workers of its own left behind (a node that returned
        after a crash cleans up here, before any work reaches it)."""
        listed: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
        nodes = [n["NodeID"] for n in listed if n.get("Alive") and n.get("Resources", {}).get(RESOURCE)]
        refs = [
            _on_node.options(name="prune", scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(
                "prune", f"prune-{node}", self._spec, None, None, {}
            )
            for node in nodes
        ]
        try:
            results = [NodeResult.model_validate(raw) for raw in ray.get(refs, timeout=120)]
        except (RayError, TimeoutError) as exc:
            log.warning("pruning the nodes failed: %s", _first_line(exc))
            return 0
        pruned = sum(r.pruned for r in results)
        if pruned:
            log.info("pruned %d containers of dead workers on %d nodes", pruned, len(nodes))
        return pruned

    def _disconnect(self) -> None:
        if self._owns_connection and ray.is_initialized():
            ray.shutdown()
        self._owns_connection = False


async def _settle(ref: ray.ObjectRef[dict[str, Any]]) -> None:
    """Wait for a cancelled task to end (with its cancellation or its result)."""
    try:
        await ref
    except (RayError, asyncio.CancelledError):
        pass


async def _prune_after_shutdown(backend: str) -> None:
    """After a local Ray instance stopped, remove the containers of its workers (they die with it)."""
    for _ in range(10):
        await asyncio.sleep(0.5)
        try:
            if await prune_dead_owners(backend) == 0 and not _workers_alive():
                return
        except SandboxError as exc:
            log.warning("pruning after the Ray instance stopped: %s", exc)
            return


def _workers_alive() -> bool:
    leases = state_dir() / "owners"
    return leases.is_dir() and any(owner_alive(lease.name) for lease in leases.iterdir())


def _connect(address: str | None, slots: int | None) -> bool:
    """Join the cluster at `address` ("auto": the one this machine belongs to), or start a local Ray
    instance offering `slots` container slots (default: one per core). False when already connected."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no phoning home from an offline tool
    common: dict[str, Any] = {"namespace": "rst-synth", "log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address:
            ray.init(address=address, **common)
        else:
            ray.init(
                num_cpus=os.cpu_count() or 1,
                resources={RESOURCE: slots or os.cpu_count() or 1},
                include_dashboard=False,
                **common,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ValueError(f"executor ray: cannot join {address or 'a local Ray instance'}: {_first_line(exc)}") from None
    return True


def _error_report(task: Task, parent: Task | None, detail: str) -> ValidationReport:
    """The cluster failed, not the task: an `error` verdict, as the validator gives when its engine fails."""
    return ValidationReport(
        task=task.name,
        path=str(task.source_dir) if task.source_dir else None,
        parent=parent.name if parent else None,
        checks=[
            CheckResult(check=Check.BUILD, verdict=Verdict.ERROR, reason=Reason.SANDBOX_ERROR, detail=detail[:300])
        ],
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def make_ray(
    sandbox: object = None,
    validator: object = None,
    spec: WorkSpec | None = None,
    *,
    address: str | None = None,
    slots: int | None = None,
    validation_slots: int = 2,
    max_retries: int = 3,
) -> RayExecutor:
    """The registry's factory. The driver's own sandbox and validator are not used: the nodes make
    theirs from `spec` (backend, labels, validator settings, agent)."""
    return RayExecutor(
        spec or WorkSpec(),
        address=address,
        slots=slots,
        validation_slots=validation_slots,
        max_retries=max_retries,
    )
