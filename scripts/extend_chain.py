#!/usr/bin/env python3
"""Grow a chain of generations from each seed with `rst extend` applied to its own output,
re-validate every child against its parent with `rst validate`, and print a table of
solution lines / executed commands per generation.

usage: python3 scripts/extend_chain.py OUT GENERATIONS SEED_DIR [SEED_DIR ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def rst(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rst_synth.cli", *args], capture_output=True, text=True)


def grow(seed: Path, out: Path, generations: int) -> list[Path]:
    chain, current = [seed], seed
    for generation in range(1, generations + 1):
        target = out / seed.name / f"g{generation}"
        result = rst("extend", str(current), "--out", str(target), "-n", "1", "--seed", str(generation))
        children = sorted(p for p in target.iterdir()) if target.is_dir() else []
        if result.returncode != 0 or not children:
            print(f"{seed.name}: generation {generation} failed:\n{result.stdout[-1500:]}{result.stderr[-1500:]}")
            break
        current = children[0]
        chain.append(current)
    return chain


def figures(paths: list[Path]) -> list[dict]:
    result = rst("validate", "--json", "-j", "2", *map(str, paths))
    return json.loads(result.stdout)


def main() -> int:
    out, generations = Path(sys.argv[1]), int(sys.argv[2])
    seeds = [Path(p) for p in sys.argv[3:] if (Path(p) / "task.toml").is_file()]
    rows, all_ok = [], True
    for seed in seeds:
        chain = grow(seed, out, generations)
        reports = figures(chain)
        accepted = all(r["accepted"] for r in reports)
        cells = [f'{r["figures"]["solution_lines"]}/{r["figures"]["executed_commands"]}' for r in reports]
        lines = [r["figures"]["solution_lines"] for r in reports]
        growing = all(b > a for a, b in zip(lines, lines[1:])) and len(chain) == generations + 1
        all_ok &= accepted and growing
        rows.append((seed.name, cells, accepted, growing))
    header = ["seed"] + [f"g{g}" for g in range(generations + 1)] + ["all accepted", "growing"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, cells, accepted, growing in rows:
        cells = cells + ["-"] * (generations + 1 - len(cells))
        print(f"| {name} | " + " | ".join(cells) + f" | {'yes' if accepted else 'NO'} | {'yes' if growing else 'NO'} |")
    print("cells: solution lines / executed commands, measured by `rst validate` with each child's parent")
    return 0 if all_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
