"""Benchmark 2: tasks validated per minute with 1, 2 and 4 validations in flight.

Each task is the tests' tiny task (tests/support/tasks.py write_task: the bundled seeds' first image
layers, a pytest verifier), validated in full without a parent: static, build (cached after the
warm-up), oracle and nop side by side, determinism: three fresh containers each. As `rst synth`
does, one Validator is shared with max_containers = 2 x the validations in flight. The levels take
turns (1, 2, 4, ref, 1, 2, 4, ref, ...) so machine load hits them alike; the baseline is the serial
level. The reference row is serial with one container at a time (oracle and nop not side by side).
Machine CPU is read from /proc/stat (every process on the machine, dockerd and containers included).

    python3 bench/validation_throughput.py [--quick]
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

from _common import REPO, footer, header, median, parser, summary, table

sys.path.insert(0, str(REPO))  # tests.support: the tiny task the tests write
from tests.support.tasks import write_task  # noqa: E402  (its Dockerfile: the bundled seeds' first layers)

os.environ["RST_RUN_LABEL"] = f"bench-{uuid.uuid4().hex[:12]}"

from rst_synth.sandbox import Sandbox, make_sandbox  # noqa: E402
from rst_synth.task import Task  # noqa: E402
from rst_synth.validator import Validator, ValidatorConfig  # noqa: E402

LEVELS = ((1, 2), (2, 4), (4, 8), (1, 1))
"""(validations in flight, max_containers); the last: a serial reference with one container at a time."""
BASE = LEVELS[0]
TARGET = 1.7


def busy_cpu_sec() -> float:
    """CPU seconds the whole machine has been busy (all processes, containers and dockerd included)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_by_process() -> dict[str, tuple[str, float]]:
    """pid -> (name, CPU seconds of it and of its reaped children)."""
    out, tick = {}, os.sysconf("SC_CLK_TCK")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            raw = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        out[pid] = ("pid 1 (reaped shims, runc, container processes)" if pid == "1" else
                    "this process" if int(pid) == os.getpid() else name, sum(int(f) for f in fields[11:15]) / tick)
    return out


def cpu_split(before: dict[str, tuple[str, float]], after: dict[str, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds per process name between two snapshots (processes alive at both)."""
    split: dict[str, float] = {}
    for pid, (name, sec) in after.items():
        if pid in before:
            split[name] = split.get(name, 0.0) + sec - before[pid][1]
    return split


async def batch(sandbox: Sandbox, tasks: list[Task], inflight: int, containers: int) -> tuple[float, int, float, float]:
    """Validate every task with `inflight` at once: (wall seconds, accepted, median seconds per
    validation, machine CPU seconds busy)."""
    validator = Validator(sandbox, ValidatorConfig(max_containers=containers))
    slots = asyncio.Semaphore(inflight)
    durations: list[float] = []

    async def one(task: Task) -> bool:
        async with slots:
            report = await validator.validate(task)
            durations.append(report.duration_sec)
            return report.accepted

    started, cpu = time.perf_counter(), busy_cpu_sec()
    accepted = await asyncio.gather(*(one(t) for t in tasks))
    return time.perf_counter() - started, sum(accepted), median(durations), busy_cpu_sec() - cpu


async def main() -> None:
    args = parser(__doc__.split("\n")[0]).parse_args()
    t0 = header("validation_throughput", args)
    count, reps = (8, 1) if args.quick else (12, 3)
    sandbox = make_sandbox("docker")
    try:
        with tempfile.TemporaryDirectory(prefix="rst-bench-tput-") as tmp:
            tasks = [Task.load(write_task(Path(tmp), name=f"tput-{i}",
                                          solve=f"echo hello > /app/out.txt\nseq {i + 1} > /app/count.txt\n"))
                     for i in range(count)]
            await batch(sandbox, tasks[:1], 1, 2)  # warm-up: the image is built or found once
            runs: dict[tuple[int, int], list[tuple[float, int, float, float]]] = {n: [] for n in LEVELS}
            procs, machine = cpu_by_process(), busy_cpu_sec()
            for _ in range(reps):
                for n in LEVELS:
                    runs[n].append(await batch(sandbox, tasks, *n))
            split, machine = cpu_split(procs, cpu_by_process()), busy_cpu_sec() - machine
    finally:
        await sandbox.close()
    cores = os.cpu_count() or 1
    per_min = {n: median([count / r[0] * 60 for r in runs[n]]) for n in LEVELS}
    busy = {n: median([r[3] / (r[0] * cores) for r in runs[n]]) for n in LEVELS}
    cpu_per_task = median([r[3] / count for n in LEVELS for r in runs[n]])
    table(f"{count} tasks per batch, {reps} batch(es) per level (median), 3 containers per validation",
          ["validations in flight (max containers)", "tasks / minute", "median wall per batch", "median seconds per validation",
           "machine CPU busy", "accepted", "ratio to serial"],
          [[f"{n[0]} ({n[1]}){' reference' if n == LEVELS[-1] else ''}", f"{per_min[n]:.1f}",
            f"{median([r[0] for r in runs[n]]):.1f} s",
            f"{median([r[2] for r in runs[n]]):.2f} s", f"{100 * busy[n]:.0f}%",
            f"{sum(r[1] for r in runs[n])}/{count * reps}", f"{per_min[n] / per_min[BASE]:.2f}x"] for n in LEVELS])
    ceiling = 60 * cores / cpu_per_task
    print(f"\nmachine CPU per validated task: {cpu_per_task:.2f} s (all processes) -> at most {ceiling:.0f} tasks/min "
          f"on {cores} cores = {ceiling / per_min[BASE]:.2f}x the serial rate, if every core did nothing else")
    validated = count * reps * len(LEVELS)
    top = sorted(split.items(), key=lambda item: -item[1])[:5]
    other = machine - sum(sec for _, sec in top)
    table("Where the machine's CPU went, all batches (per validated task; processes alive before and after)",
          ["process", "CPU s / task", "share"],
          [[name, f"{sec / validated:.2f}", f"{100 * sec / machine:.0f}%"] for name, sec in top]
          + [["the rest (exited processes, kernel, other work; 0 if accounting skew)",
              f"{max(other, 0) / validated:.2f}", f"{100 * max(other, 0) / machine:.0f}%"]])
    speedup = per_min[(4, 8)] / per_min[BASE]
    summary("validation_throughput", f"4-way {per_min[(4, 8)]:.1f} tasks/min = {speedup:.2f}x serial "
            f"({per_min[BASE]:.1f}/min) on {cores} cores", f">= {TARGET}x", speedup >= TARGET)
    footer(t0)


if __name__ == "__main__":
    asyncio.run(main())
