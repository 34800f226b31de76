#!/usr/bin/env python3
"""Grow the tasks people bring (tests/fixtures/tb2, Terminal-Bench-2-style tasks written for other
purposes) three generations offline and show how far each lineage got.

It runs `rst synth` on the fixture folder at fanout 1 with the procedural proposer (no network, no
model), then reads the run's store and prints one row per fixture: the rounds its lineage reached,
the operators of each round's accepted child, and, for a lineage that ended early, the rejection
that ended it (`propose: no_applicable_operator`, a failed check, ...). Exit status 1 when any
lineage ended early.

usage: python3 scripts/grow_foreign.py [--out RUN] [--rounds 3] [--seed 0] [--fixtures DIR] [--report-only]

Run it again on the same --out to resume a run that stopped; --report-only prints the table of an
existing run without running anything.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rst_synth.store import CandidateRow, RunPaths, Store

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "tb2"


@dataclass
class Lineage:
    """One fixture's lineage in a run: the operators of each accepted child and why it stopped."""

    fixture: str
    seed_accepted: bool = False
    rounds: list[list[str]] = field(default_factory=list)
    """Per round reached, the operators of its accepted child."""
    ended: str | None = None
    """Why the lineage stopped before the last round (None when it reached it)."""


def lineages(store: Store, fixtures: list[str], rounds: int) -> list[Lineage]:
    """Follow each seed's one child per round (fanout 1) through the store."""
    candidates = store.candidates()
    result = []
    for name in fixtures:
        lineage = Lineage(fixture=name)
        seed = store.task(name)
        if seed is None:
            first = next((c for c in candidates if c.id == f"r00-{name}"), None)
            lineage.ended = _why(first) if first else "seed not validated (run stopped?)"
            result.append(lineage)
            continue
        lineage.seed_accepted = True
        parent = seed.id
        for round_ in range(1, rounds + 1):
            mine = [c for c in candidates if c.round == round_ and c.parent_id == parent]
            accepted = next((c for c in mine if c.status == "accepted" and c.task_id), None)
            child = store.task(accepted.task_id) if accepted and accepted.task_id else None
            if child is None:
                lineage.ended = f"round {round_}: " + (_why(mine[0]) if mine else "no candidate (run stopped?)")
                break
            lineage.rounds.append(child.steps)
            parent = child.id
        result.append(lineage)
    return result


def _why(candidate: CandidateRow) -> str:
    if candidate.rejection_check is None:
        return f"candidate {candidate.status}"
    detail = (candidate.detail or "").strip().splitlines()
    why = f"{candidate.rejection_check}: {candidate.rejection_reason}"
    return why + (f" ({detail[0][:100]})" if detail else "")


def table(rows: list[Lineage], rounds: int) -> str:
    header = ["fixture", "seed", "rounds reached"] + [f"r{r} operators" for r in range(1, rounds + 1)]
    lines = ["| " + " | ".join(header + ["ended early"]) + " |", "|" + "---|" * (len(header) + 1)]
    for row in rows:
        cells = [" + ".join(steps) or "-" for steps in row.rounds]
        cells += ["-"] * (rounds - len(cells))
        seed = "accepted" if row.seed_accepted else "REJECTED"
        ended = row.ended or "no"
        lines.append(f"| {row.fixture} | {seed} | {len(row.rounds)}/{rounds} | " + " | ".join(cells) + f" | {ended} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("runs/grow-foreign"), help="run directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixtures", type=Path, default=FIXTURES, help="folder of task directories")
    parser.add_argument("--report-only", action="store_true", help="print the table of an existing run")
    args = parser.parse_args(argv)

    fixtures = sorted(p.name for p in args.fixtures.iterdir() if (p / "task.toml").is_file())
    if not args.report_only:
        command = [
            sys.executable, "-m", "rst_synth.cli", "synth", str(args.fixtures), "--out", str(args.out),
            "--rounds", str(args.rounds), "--fanout", "1", "--proposer", "procedural", "--seed", str(args.seed),
        ]  # fmt: skip
        print("$", " ".join(command[1:]), flush=True)
        finished = subprocess.run(command)
        if finished.returncode != 0:
            print(f"rst synth exited with status {finished.returncode}; the table shows what the store holds")
    database = RunPaths(args.out).db
    if not database.is_file():
        print(f"{database}: no run here")
        return 2
    store = Store(database)
    try:
        rows = lineages(store, fixtures, args.rounds)
    finally:
        store.close()
    print(table(rows, args.rounds))
    early = [row.fixture for row in rows if len(row.rounds) < args.rounds]
    grown = len(rows) - len(early)
    print(f"\n{grown} of {len(rows)} lineages reached round {args.rounds}; ended early: {', '.join(early) or 'none'}")
    return 1 if early else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
