"""Benchmark 6: validations through the `ray` executor against the `local` one on the same machine
(the overhead ratio), and what a 37,000-task run with pass@4 would take on a cluster.

Both executors validate the same batch of tiny tasks (tests/support/tasks.py write_task, as benchmark 2),
2 validations in flight: local with one Validator of 4 containers, ray with a local Ray instance of 4
`container_slots` (2 a validation), so both may run the same containers at once. The batches take
turns (local, ray, local, ray, ...) so machine load hits them alike. For ray, the time a task spent on
its node is set against the time the driver waited for it: the difference is Ray's dispatch cost
(submitting, scheduling, shipping the task and the report). One oracle attempt through each executor
is timed the same way.

The estimate reads per-task costs measured by a real synthesis run (`--run RUN`, made with
`rst synth ... --executor ray`, whose log names the seconds each validation and discovery took on its
node) and prints its arithmetic; bench/README.md explains it.

    python3 bench/ray_throughput.py [--quick] [--run RUN] [--agent-sec S]
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

from _common import REPO, footer, header, median, parser, summary, table

sys.path.insert(0, str(REPO))
from tests.support.tasks import write_task  # noqa: E402

os.environ["RST_RUN_LABEL"] = f"bench-{uuid.uuid4().hex[:12]}"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from rst_synth.agents import make_agent  # noqa: E402
from rst_synth.executors import AgentSpec, Executor, WorkSpec, make_executor  # noqa: E402
from rst_synth.sandbox import make_sandbox  # noqa: E402
from rst_synth.task import Task  # noqa: E402
from rst_synth.validator import Validator, ValidatorConfig  # noqa: E402

INFLIGHT = 2
TARGET = 1.25
"""Ray's wall time per batch at most this much of the local executor's."""
TASKS = 37_000
PASS_K = 4


async def batch(executor: Executor, tasks: list[Task]) -> tuple[float, float]:
    """Validate every task, INFLIGHT at once (all must pass): (wall seconds, seconds the driver waited
    per validation beyond the validator's own duration, median)."""
    slots = asyncio.Semaphore(INFLIGHT)
    extra: list[float] = []

    async def one(task: Task) -> bool:
        async with slots:
            started = time.perf_counter()
            report = await executor.validate(task, None)
            extra.append(time.perf_counter() - started - report.duration_sec)
            return report.accepted

    started = time.perf_counter()
    accepted = await asyncio.gather(*(one(t) for t in tasks))
    assert all(accepted), "a bench task was rejected"
    return time.perf_counter() - started, median(extra)


async def attempt(executor: Executor, task: Task, out: Path, rep: int) -> float:
    agent = make_agent("oracle")
    started = time.perf_counter()
    result = await executor.attempt(task, agent, attempt=rep, seed=rep, out_dir=out / f"a-{rep}")
    assert result.reward == 1.0 and (out / f"a-{rep}" / "trajectory.json").is_file()
    return time.perf_counter() - started


def node_costs(run: Path) -> dict[str, float]:
    """Per-task costs a ray synthesis run measured, from the seconds its log names for each piece of
    work on its node: children only (round 0 validates the seeds, a fixed cost)."""
    lines = (run / "logs" / "run.jsonl").read_text().splitlines()
    work = [e for e in map(json.loads, lines) if e.get("executor") == "ray" and not str(e["key"]).startswith("r00-")]
    db = sqlite3.connect(f"file:{run / 'run.db'}?mode=ro", uri=True)
    try:
        children = db.execute("SELECT COUNT(*) FROM candidates WHERE round > 0 AND status != 'pending'").fetchone()[0]
        accepted = db.execute("SELECT COUNT(*) FROM tasks WHERE round > 0").fetchone()[0]
    finally:
        db.close()
    validations = [float(e["seconds"]) for e in work if e["kind"] == "validate"]
    discoveries = [float(e["seconds"]) for e in work if e["kind"] == "discover"]
    return {
        "children": children,
        "accepted": accepted,
        "validations": len(validations),
        "validate_sec": sum(validations),
        "discoveries": len(discoveries),
        "discover_sec": sum(discoveries),
    }


def estimate(costs: dict[str, float], attempt_sec: float, agent_sec: float, slots_per_node: int) -> None:
    accepted = max(costs["accepted"], 1)
    validation = 2 * costs["validate_sec"] / accepted  # a validation holds 2 container slots while it runs
    discovery = costs["discover_sec"] / accepted  # a discovery holds 1
    agent = PASS_K * (attempt_sec + agent_sec)  # an attempt holds 1: its container, also while the model thinks
    per_task = validation + discovery + agent
    total_hours = TASKS * per_task / 3600
    rows = [
        ["validation", f"2 slots x {costs['validate_sec']:.1f} s over {costs['validations']:.0f} validations "
         f"/ {accepted:.0f} accepted children", f"{validation:.1f}"],
        ["discovery", f"1 slot x {costs['discover_sec']:.1f} s over {costs['discoveries']:.0f} discoveries "
         f"/ {accepted:.0f} accepted", f"{discovery:.1f}"],
        ["agent attempts", f"pass@{PASS_K}: {PASS_K} x 1 slot x ({attempt_sec:.1f} s container + {agent_sec:.0f} s "
         "model turns)", f"{agent:.1f}"],
        ["per accepted task", "", f"{per_task:.1f}"],
        [f"{TASKS:,} tasks", f"{TASKS:,} x {per_task:.1f} s / 3600", f"{total_hours:,.0f} slot-hours"],
    ]
    table("Slot-seconds per accepted task (node seconds measured; the model's time assumed)",
          ["part", "arithmetic", "slot-s"], rows)
    out = []
    for nodes in (1, 8, 32, 64):
        hours = total_hours / (nodes * slots_per_node)
        out.append([nodes, nodes * slots_per_node, f"{hours:,.1f} h", f"{hours / 24:,.1f} days"])
    table(f"Wall time of {TASKS:,} tasks with pass@{PASS_K} on nodes of {slots_per_node} slots "
          f"(one slot a core, every slot busy)", ["nodes", "slots", "wall", "days"], out)
    containers = TASKS * (validation + discovery + PASS_K * attempt_sec) / 3600
    print(f"\nwithout the model's time (the container work alone): {containers:,.0f} slot-hours = "
          f"{containers / slots_per_node:,.1f} node-hours of {slots_per_node} slots")


async def main() -> None:
    p = parser(__doc__.split("\n")[0])
    p.add_argument("--run", type=Path, help="a run made with --executor ray: its measured per-task costs")
    p.add_argument("--agent-sec", type=float, default=300.0,
                   help="model time of one llm agent attempt, an assumption (default 300 s: 40 turns of 7.5 s)")
    p.add_argument("--slots-per-node", type=int, default=16, help="container slots of a node in the estimate")
    args = p.parse_args()
    t0 = header("ray_throughput", args)
    count, reps = (6, 1) if args.quick else (10, 3)
    sandbox = make_sandbox("docker")
    local = make_executor("local", sandbox=sandbox, validator=Validator(sandbox, ValidatorConfig(max_containers=4)))
    ray_started = time.perf_counter()
    remote = make_executor("ray", sandbox=sandbox, spec=WorkSpec(agent=AgentSpec(name="oracle")), slots=2 * INFLIGHT)
    ray_start = time.perf_counter() - ray_started
    walls: dict[str, list[float]] = {"local": [], "ray": []}
    extra: dict[str, list[float]] = {"local": [], "ray": []}
    attempts: dict[str, list[float]] = {"local": [], "ray": []}
    try:
        with tempfile.TemporaryDirectory(prefix="rst-bench-ray-") as tmp:
            tasks = [Task.load(write_task(Path(tmp), name=f"ray-{i}",
                                          solve=f"echo hello > /app/out.txt\nseq {i + 1} > /app/count.txt\n"))
                     for i in range(count)]
            for executor in (local, remote):  # warm-up: the image, Ray's worker processes
                await batch(executor, tasks[:INFLIGHT])
                await attempt(executor, tasks[0], Path(tmp) / f"warm-{executor.name}", 0)
            for rep in range(reps):
                for executor in (local, remote):
                    wall, beyond = await batch(executor, tasks)
                    walls[executor.name].append(wall)
                    extra[executor.name].append(beyond)
                    attempts[executor.name].append(await attempt(executor, tasks[0], Path(tmp) / executor.name, rep + 1))
    finally:
        await remote.close()
        await sandbox.close()
    per_min = {name: median([count / w * 60 for w in ws]) for name, ws in walls.items()}
    ratio = median(walls["ray"]) / median(walls["local"])
    table(f"{count} tasks per batch, {INFLIGHT} in flight, {reps} batch(es) each (median)",
          ["executor", "tasks / minute", "median wall per batch", "driver's wait beyond the validator, per task",
           "oracle attempt", "ratio to local"],
          [[name, f"{per_min[name]:.1f}", f"{median(walls[name]):.1f} s", f"{median(extra[name]):.3f} s",
            f"{median(attempts[name]):.2f} s", f"{median(walls[name]) / median(walls['local']):.2f}x"]
           for name in walls])
    print(f"\nray: starting the local instance took {ray_start:.1f} s; per validation Ray adds "
          f"{median(extra['ray']) - median(extra['local']):.2f} s (submitting, scheduling, the task there and "
          "the report back, the node's sandbox and prune)")
    if args.run:
        costs = node_costs(args.run)
        print(f"\nmeasured by {args.run.name}: {costs}")
        estimate(costs, median(attempts["ray"]), args.agent_sec, args.slots_per_node)
    summary("ray_throughput", f"ray {per_min['ray']:.1f} tasks/min vs local {per_min['local']:.1f} = "
            f"{ratio:.2f}x the local wall time", f"<= {TARGET}x", ratio <= TARGET)
    footer(t0)


if __name__ == "__main__":
    asyncio.run(main())
