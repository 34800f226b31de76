"""Benchmark 5: what the quality checks add to the validation of a child.

Each child is validated against its parent in full, once with the quality checks and once without
(`ValidatorConfig(quality=False)`), the two modes taking turns so machine load hits them alike; the
baseline is the same child without them, measured in the same run. Children: the hand-written
example child (one step, examples/children/access-log-report-errors) and a procedural child of
sales-csv-rollup with two or more steps (the first seed from 0 whose child has them and is
accepted), so the steps check runs too. The image is built (or found) once before timing.

    python3 bench/quality_overhead.py [--quick]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid

from _common import REPO, SEEDS, footer, header, median, parser, ratio, summary, table

os.environ["RST_RUN_LABEL"] = f"bench-{uuid.uuid4().hex[:12]}"  # our containers only, on a shared engine

from rst_synth.proposers import make_proposer
from rst_synth.proposers.discovery import discovery_on
from rst_synth.sandbox import Sandbox, make_sandbox
from rst_synth.task import Task
from rst_synth.validator import QUALITY_CHECKS, ValidationReport, Validator, ValidatorConfig

TARGET = 2.0
"""Validation with the quality checks at most this many times the time without (median child)."""


async def procedural_child(sandbox: Sandbox, validator: Validator) -> tuple[str, Task, Task]:
    parent = Task.load(SEEDS / "sales-csv-rollup")
    proposer = make_proposer("procedural", discovery=discovery_on(sandbox), cache_dir=None)
    try:
        for seed in range(30):
            proposal = await proposer.propose(parent, seed=seed)
            if len(proposal.steps) >= 2 and (await validator.validate(proposal.task, parent)).accepted:
                return f"sales-csv-rollup seed {seed}: {' + '.join(proposal.steps)}", proposal.task, parent
    finally:
        await proposer.close()
    raise SystemExit("no accepted procedural child with two or more steps in seeds 0-29")


def quality_seconds(report: ValidationReport, check: str) -> float:
    found = next((c for c in report.checks if c.check.value == check), None)
    return found.duration_sec if found else 0.0


async def main() -> None:
    args = parser(__doc__.split("\n")[0]).parse_args()
    started = header("quality_overhead", args)
    reps = 2 if args.quick else 5
    sandbox = make_sandbox("docker")
    try:
        on = Validator(sandbox, ValidatorConfig(max_containers=4))
        off = Validator(sandbox, ValidatorConfig(max_containers=4, quality=False))
        example = REPO / "examples" / "children" / "access-log-report-errors"
        children = [
            ("access-log-report-errors (hand-written)", Task.load(example), Task.load(SEEDS / "access-log-report")),
            await procedural_child(sandbox, on),
        ]
        rows, ratios = [], []
        for name, child, parent in children:
            await off.validate(child, parent)  # warm-up: image built or found
            timed: dict[str, list[float]] = {"off": [], "on": []}
            reports: list[ValidationReport] = []
            for _ in range(reps):
                for mode, validator in (("off", off), ("on", on)):
                    t = time.perf_counter()
                    report = await validator.validate(child, parent)
                    timed[mode].append(time.perf_counter() - t)
                    if mode == "on":
                        assert report.accepted, (name, report.first_failure)
                        reports.append(report)
            without, with_ = median(timed["off"]), median(timed["on"])
            ratios.append(with_ / without)
            last = reports[-1]
            mutation = last.result_of("mutation").detail
            lineage = child.config.metadata.lineage
            rows.append(
                [
                    name,
                    len(lineage.added) if lineage and lineage.added else 1,
                    mutation.split(" made")[0],
                    f"{without:.2f} s",
                    f"{with_:.2f} s",
                    ratio(with_, without),
                    f"{median([quality_seconds(r, 'steps') for r in reports]):.2f} s",
                    f"{median([quality_seconds(r, 'mutation') for r in reports]):.2f} s",
                    f"{last.figures.kill_rate:.0%}" if last.figures.kill_rate is not None else "-",
                ]
            )
    finally:
        await sandbox.close()
    table(
        f"Validating one child against its parent, without and with the quality checks "
        f"({', '.join(c.value for c in QUALITY_CHECKS)}); medians of {reps} runs each, modes taking turns",
        [
            "child",
            "new steps",
            "mutation edits",
            "without",
            "with",
            "ratio with / without",
            "steps check",
            "mutation check",
            "kill rate",
        ],
        rows,
    )
    worst = max(ratios)
    summary(
        "quality_overhead",
        f"validation with the quality checks {median(ratios):.2f}x without (median child), worst {worst:.2f}x",
        f"<= {TARGET}x",
        median(ratios) <= TARGET,
    )
    footer(started)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
