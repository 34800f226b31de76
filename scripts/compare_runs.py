"""Compare the accepted tasks of two synthesis runs (the same seeds and --seed, before and after a change).

    python scripts/compare_runs.py RUN_A RUN_B

Tasks are matched by their lineage (root, round, steps), not by name: a task's name carries a digest of
its solution and tests. For each pair it compares the instruction, the environment, the solution and
the tests byte for byte; test files that differ in bytes but parse to the same program (layout,
comments, type hints) count as "same code". Exits 1 when a task is missing on one side or any file
differs beyond layout.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections import Counter
from pathlib import Path


def _tasks(run: Path) -> dict[tuple[str, int, tuple[str, ...]], Path]:
    found = {}
    for toml in sorted((run / "tasks").glob("r*/*/task.toml")):
        lineage = tomllib.loads(toml.read_text())["metadata"].get("lineage") or {}
        key = (lineage.get("root") or toml.parent.name, int(lineage.get("round") or 0), tuple(lineage.get("steps") or ()))
        found[key] = toml.parent
    return found


def _files(task: Path) -> dict[str, bytes]:
    return {str(p.relative_to(task)): p.read_bytes() for p in sorted(task.rglob("*")) if p.is_file() and p.name != "task.toml"}


def _same_code(a: bytes, b: bytes) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def main(a_dir: str, b_dir: str) -> int:
    a, b = _tasks(Path(a_dir)), _tasks(Path(b_dir))
    tally: Counter[str] = Counter()
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            print(f"only in {'first' if key in a else 'second'}: {key}")
            tally["missing"] += 1
            continue
        fa, fb = _files(a[key]), _files(b[key])
        for name in sorted(set(fa) | set(fb)):
            if fa.get(name) == fb.get(name):
                tally["same bytes"] += 1
            elif name.endswith(".py") and name in fa and name in fb and _same_code(fa[name], fb[name]):
                tally["same code"] += 1
            else:
                tally["differs"] += 1
                print(f"differs: {key[0]} round {key[1]} {name}")
    print(f"{len(set(a) & set(b))} tasks in both; files: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 1 if tally["missing"] or tally["differs"] else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
