"""Benchmark: what the tolerance check adds to the validation of a child.

Each child is validated against its parent with the tolerance check and without
(`ValidatorConfig(tolerance=False)`), the two modes taking turns so machine load hits them alike; the
baseline is the same child without it, measured in the same run. Each child is validated two ways: in
full (the parent's solution run again), and from the parent's kept state as `rst synth` validates it
(`keep_states`: only the new steps run), where the check's share is largest. Children: the hand-written example
child (examples/children/access-log-report-errors), and any task directories given with `--child`
(a synthesized task whose task.toml records `parent_path`, e.g. a round-5 task of a run).

    python3 bench/tolerance_overhead.py [--quick] [--mode full|kept|both] [--child runs/eight/tasks/r05/<task>]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from pathlib import Path

from _common import REPO, SEEDS, footer, header, median, parser, ratio, summary, table

os.environ["RST_RUN_LABEL"] = f"bench-{uuid.uuid4().hex[:12]}"  # our containers only, on a shared engine

from rst_synth.sandbox import make_sandbox
from rst_synth.task import Task
from rst_synth.validator import Validator, ValidatorConfig

TARGET = 1.10
"""Validation with the tolerance check at most this many times the time without (median child)."""


def parent_of(child: Task, folder: Path) -> Task:
    lineage = child.config.metadata.lineage
    if lineage is None or not lineage.parent_path:
        raise SystemExit(f"{folder / 'task.toml'}: records no parent_path ([metadata.lineage])")
    return Task.load((folder / lineage.parent_path).resolve())


async def main() -> None:
    cli = parser(__doc__.split("\n")[0])
    cli.add_argument("--child", action="append", type=Path, default=[], help="a child task directory")
    cli.add_argument(
        "--mode",
        choices=["full", "kept", "both"],
        default="both",
        help="validate in full, from the kept state, or both",
    )
    args = cli.parse_args()
    started = header("tolerance_overhead", args)
    reps = 2 if args.quick else 4
    example = REPO / "examples" / "children" / "access-log-report-errors"
    children = [("access-log-report-errors (hand-written)", Task.load(example), Task.load(SEEDS / "access-log-report"))]
    for folder in args.child:
        child = Task.load(folder)
        children.append((child.short_name, child, parent_of(child, folder)))
    sandbox = make_sandbox("docker")
    rows, ratios = [], []
    try:
        for kept in [k for k in (False, True) if args.mode in ("both", "kept" if k else "full")]:
            on = Validator(sandbox, ValidatorConfig(max_containers=4, keep_states=kept))
            off = Validator(sandbox, ValidatorConfig(max_containers=4, keep_states=kept, tolerance=False))
            how = "from the parent's kept state" if kept else "in full"
            for name, child, parent in children:
                await off.validate(child, parent)  # warm-up: images built or found, the parent's state kept
                timed: dict[str, list[float]] = {"off": [], "on": []}
                check: list[float] = []
                detail = ""
                for _ in range(reps):
                    for mode, validator in (("off", off), ("on", on)):
                        t = time.perf_counter()
                        report = await validator.validate(child, parent)
                        timed[mode].append(time.perf_counter() - t)
                        if mode == "on":
                            result = report.result_of("tolerance")
                            check.append(result.duration_sec)
                            detail = f"{result.verdict.value}: {result.detail[:60]}"
                without, with_ = median(timed["off"]), median(timed["on"])
                ratios.append(with_ / without)
                cells = [f"{without:.2f} s", f"{with_:.2f} s", ratio(with_, without), f"{median(check):.2f} s"]
                rows.append([name, how, *cells, detail])
    finally:
        await sandbox.close()
    table(
        f"Validating one child against its parent, without and with the tolerance check; medians of {reps} runs "
        "each, modes taking turns",
        ["child", "validated", "without", "with", "ratio with / without", "tolerance check", "its verdict"],
        rows,
    )
    summary(
        "tolerance_overhead",
        f"validation with the tolerance check {median(ratios):.2f}x without (median), worst {max(ratios):.2f}x",
        f"<= {TARGET}x",
        median(ratios) <= TARGET,
    )
    footer(started)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
