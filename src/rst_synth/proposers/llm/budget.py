"""Prompt sizes of synthetic parents of growing size: evidence that the prompts stay bounded."""

from __future__ import annotations

from rst_synth.proposers.llm.prompts import STAGES, PromptBudgets, prompt_tokens
from rst_synth.task import Lineage, Metadata, Task, TaskConfig, TaskInfo, TaskPaths

LINES_PER_ROUND = 25
"""A synthetic lineage adds this many solution lines per round."""

UNBOUNDED = PromptBudgets(
    solution_chars=10**9,
    instruction_chars=10**9,
    tests_chars=10**9,
    dockerfile_chars=10**9,
    candidate_chars=10**9,
    tests_summary_chars=10**9,
)
"""Budgets that never cut: what the prompts would cost without bounding (the older test modules
are still listed by name only)."""


def synthetic_parent(solution_lines: int) -> Task:
    """A parent as a lineage of that size would look: a solution of `solution_lines` lines grown over
    rounds of LINES_PER_ROUND lines, each round adding a test module and an instruction paragraph."""
    rounds = max(1, solution_lines // LINES_PER_ROUND)
    solve = ["#!/bin/bash", "set -euo pipefail"]
    k = 0
    while len(solve) < solution_lines:
        r = k * rounds // max(1, solution_lines) + 1
        solve.append(
            f"awk -F, 'NR > 1 {{ s[$1] += ${k % 5 + 2} }} END {{ for (g in s) print g \",\" s[g] }}' "
            f"/app/data/round{r}.csv | LC_ALL=C sort > /app/out/r{r}_{k}.csv"
        )
        k += 1
    files = {
        TaskPaths.SOLVE: "\n".join(solve[:solution_lines]) + "\n",
        TaskPaths.DOCKERFILE: "FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y python3 "
        "python3-pytest\nWORKDIR /app\n" + "".join(f"RUN mkdir -p /app/data/r{r}\n" for r in range(1, rounds // 5 + 1)),
        TaskPaths.TEST_SH: "#!/bin/bash\npython3 -m pytest /tests && echo 1 > /logs/verifier/reward.txt\n",
        "tests/test_outputs.py": _module(0),
    }
    instruction = "Summarise the CSV files in `/app/data` into `/app/out`.\n"
    for r in range(1, rounds):
        files[f"tests/test_step_r{r}.py"] = _module(r)
        instruction += (
            f"\nThen, for round {r}, write `/app/out/r{r}_summary.csv` with a header `group,total` and "
            f"one line per group of `/app/data/round{r}.csv`, totals summed over the numeric column, "
            "ordered by group name (plain byte order), with totals rounded to 2 decimal places.\n"
        )
    lineage = Lineage(parent="synthetic/parent", root="synthetic/seed", round=rounds - 1, proposer="llm")
    config = TaskConfig(task=TaskInfo(name=f"synthetic/lines-{solution_lines}"), metadata=Metadata(lineage=lineage))
    return Task(config=config, instruction=instruction, files={k: v.encode() for k, v in files.items()})


def _module(r: int) -> str:
    body = "import csv\nfrom pathlib import Path\n\n"
    for t in range(4):
        body += (
            f"\ndef test_round{r}_check{t}():\n"
            f"    rows = list(csv.reader(Path('/app/out/r{r}_{t}.csv').open()))\n"
            f"    source = list(csv.reader(Path('/app/data/round{r}.csv').open()))[1:]\n"
            "    groups = sorted({row[0] for row in source})\n"
            "    assert [row[0] for row in rows] == groups\n"
        )
    return body


def budget_rows(sizes: tuple[int, ...] = (10, 50, 100, 200, 400)) -> list[dict[str, int]]:
    """Approximate prompt tokens (characters / 4) per stage for each synthetic size, and unbounded for extend."""
    rows = []
    for lines in sizes:
        parent = synthetic_parent(lines)
        row = {"solution_lines": lines, "rounds": max(1, lines // LINES_PER_ROUND), **prompt_tokens(parent)}
        row["extend_unbounded"] = prompt_tokens(parent, budgets=UNBOUNDED)["extend"]
        rows.append(row)
    return rows


def markdown_table(rows: list[dict[str, int]]) -> str:
    columns = ["solution_lines", "rounds", *STAGES, "extend_unbounded"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"
