"""Benchmark 8: validation with kept states (validator/kept.py) against validation from scratch.

The same synthesis (the quick start's: the bundled seeds, the offline proposer, `--fanout 1`, five
rounds, run seed 0) runs twice in this run on this machine: first as it is (kept states on), then with
`--no-kept-states` (the baseline; it runs second, so the images both need are built by the first,
in the baseline's favour). Per round it prints, for both: validation seconds per candidate (the
validator's wall time, from the run's store), validation as a multiple of the oracle check (sums
over the round's candidates), tasks accepted per minute (the round's wall time), the new steps
and solution lines per candidate, and whether the two accepted sets are the same. Then ten
accepted round-5 tasks (random.Random(0)) of the first run are validated again with nothing kept
(the run's kept states removed first) and must pass.

    python3 bench/kept_states.py [--quick] [--rounds N] [--keep DIR]

--quick: four seeds, three rounds, three revalidated tasks.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from _common import RST, SEEDS, footer, header, parser, summary, table

from rst_synth.sandbox import make_sandbox
from rst_synth.task import Task
from rst_synth.validator import Validator, ValidatorConfig

QUICK_SEEDS = ("sales-csv-rollup", "access-log-report", "git-release-notes", "loopback-kv-service")
RATIO_TARGET = 2.5
"""Validation at most this many times the oracle check, rounds 3-5, with kept states."""
SPEED_TARGET = 2.0
"""Accepted tasks per minute over rounds 1-5 at least this many times the baseline's."""


@dataclass
class Round:
    candidates: int = 0
    validation_sec: float = 0.0
    oracle_sec: float = 0.0
    accepted: set[str] = field(default_factory=set)
    wall_sec: float = 0.0
    steps: int = 0
    lines: int = 0

    def per_candidate(self) -> float:
        return self.validation_sec / self.candidates if self.candidates else float("nan")

    def multiple(self) -> float:
        return self.validation_sec / self.oracle_sec if self.oracle_sec else float("nan")

    def per_minute(self) -> float:
        return 60 * len(self.accepted) / self.wall_sec if self.wall_sec else float("nan")


def synth(seeds: Path, out: Path, rounds: int, kept: bool) -> None:
    command = [*RST, "synth", str(seeds), "--out", str(out), "--rounds", str(rounds), "--fanout", "1"]
    command += [] if kept else ["--no-kept-states"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def read_run(out: Path) -> dict[int, Round]:
    """Per round (1..N): the validations of its candidates and what was accepted."""
    db = sqlite3.connect(out / "run.db")
    rounds: dict[int, Round] = {}
    for number, started, finished in db.execute("SELECT round, started_at, finished_at FROM rounds WHERE round > 0"):
        rounds[number] = Round(wall_sec=(finished or 0) - (started or 0))
    for number, duration, checks in db.execute("SELECT round, duration_sec, checks FROM attempts WHERE round > 0"):
        found = rounds.setdefault(number, Round())
        found.candidates += 1
        found.validation_sec += duration or 0.0
        oracle = next((c for c in json.loads(checks) if c.get("check") == "oracle"), None)
        found.oracle_sec += (oracle or {}).get("duration_sec") or 0.0
    for number, name, steps, lines in db.execute(
        "SELECT round, name, steps, solution_lines FROM tasks WHERE round > 0"
    ):
        found = rounds.setdefault(number, Round())
        found.accepted.add(name)
        found.steps += len(json.loads(steps or "[]"))
        found.lines += lines or 0
    db.close()
    return rounds


def drop_states(out: Path) -> None:
    subprocess.run([*RST, "gc", str(out), "--drop-states"], check=True, stdout=subprocess.DEVNULL)


async def revalidate(out: Path, last: int, count: int) -> list[tuple[str, bool, str]]:
    """`count` accepted tasks of round `last`, validated against their parents with nothing kept."""
    db = sqlite3.connect(out / "run.db")
    rows = db.execute(
        "SELECT t.name, t.path, p.path FROM tasks t JOIN tasks p ON p.id = t.parent_id "
        "WHERE t.round = ? ORDER BY t.name",
        (last,),
    ).fetchall()
    db.close()
    chosen = random.Random(0).sample(rows, min(count, len(rows)))
    sandbox = make_sandbox("docker")
    validator = Validator(sandbox, ValidatorConfig(max_containers=4, keep_states=False))
    found = []
    try:
        for name, path, parent in chosen:
            report = await validator.validate(Task.load(out / path), Task.load(out / parent))
            failure = report.first_failure
            found.append((name, report.accepted, f"{failure.check.value}: {failure.detail}" if failure else ""))
    finally:
        await sandbox.close()
    return found


def main() -> None:
    args = parser(__doc__.split("\n")[0])
    args.add_argument("--rounds", type=int, default=None, help="rounds of synthesis (5; 3 with --quick)")
    args.add_argument("--keep", type=Path, default=None, help="keep the two runs in this folder")
    options = args.parse_args()
    rounds = options.rounds or (3 if options.quick else 5)
    started = header("kept_states", options)
    work = options.keep or Path(tempfile.mkdtemp(prefix="rst-bench-kept-"))
    seeds = SEEDS
    if options.quick:
        seeds = work / "seeds"
        for name in QUICK_SEEDS:
            shutil.copytree(SEEDS / name, seeds / name, dirs_exist_ok=True)
    runs = {"kept": work / f"kept-{uuid.uuid4().hex[:6]}", "scratch": work / f"scratch-{uuid.uuid4().hex[:6]}"}
    figures: dict[str, dict[int, Round]] = {}
    try:
        for mode, out in runs.items():
            synth(seeds, out, rounds, kept=mode == "kept")
            figures[mode] = read_run(out)
        kept, scratch = figures["kept"], figures["scratch"]
        rows = []
        for number in range(1, rounds + 1):
            k, s = kept.get(number, Round()), scratch.get(number, Round())
            rows.append(
                [
                    number,
                    f"{s.candidates} / {k.candidates}",
                    f"{k.steps / max(len(k.accepted), 1):.1f}",
                    f"{k.lines / max(len(k.accepted), 1):.0f}",
                    f"{s.per_candidate():.1f} s",
                    f"{k.per_candidate():.1f} s",
                    f"{s.multiple():.2f}x",
                    f"{k.multiple():.2f}x",
                    f"{s.per_minute():.2f}",
                    f"{k.per_minute():.2f}",
                    "same" if k.accepted == s.accepted else f"differ ({len(k.accepted ^ s.accepted)} tasks)",
                ]
            )
        table(
            f"{rounds} rounds from {seeds.name if options.quick else 'the 13 bundled seeds'}: from scratch "
            "(baseline) / from kept states",
            [
                "round",
                "candidates",
                "new steps per task",
                "solution lines per task",
                "validation per candidate, scratch",
                "kept",
                "validation / oracle, scratch",
                "kept",
                "accepted per minute, scratch",
                "kept",
                "accepted set",
            ],
            rows,
        )
        late = [kept[n].multiple() for n in range(3, rounds + 1) if n in kept]
        rate = {
            m: sum(len(r.accepted) for r in f.values()) / sum(r.wall_sec for r in f.values())
            for m, f in figures.items()
        }
        speedup = rate["kept"] / rate["scratch"]
        growth = {m: f[rounds].per_candidate() / f[1].per_candidate() for m, f in figures.items()}
        lines = (kept[rounds].lines / len(kept[rounds].accepted)) / (kept[1].lines / len(kept[1].accepted))
        print(
            f"\naccepted per minute, rounds 1-{rounds}: scratch {60 * rate['scratch']:.2f}, kept "
            f"{60 * rate['kept']:.2f} ({speedup:.2f}x). Round {rounds} against round 1: validation per candidate "
            f"scratch {growth['scratch']:.2f}x, kept {growth['kept']:.2f}x; solution lines per task {lines:.2f}x"
        )
        drop_states(runs["kept"])
        checked = asyncio.run(revalidate(runs["kept"], rounds, 3 if options.quick else 10))
        table(
            f"Accepted round-{rounds} tasks of the kept run, validated again with nothing kept",
            ["task", "accepted", "failure"],
            [[name, "yes" if ok else "NO", why or "-"] for name, ok, why in checked],
        )
        same = all(kept.get(n, Round()).accepted == scratch.get(n, Round()).accepted for n in range(1, rounds + 1))
        ok = max(late, default=0.0) <= RATIO_TARGET and speedup >= SPEED_TARGET and same and all(c[1] for c in checked)
        summary(
            "kept_states",
            f"validation / oracle rounds 3-{rounds} with kept states {', '.join(f'{x:.2f}x' for x in late)}; "
            f"accepted per minute {speedup:.2f}x the baseline; accepted sets {'the same' if same else 'differ'}; "
            f"{sum(c[1] for c in checked)} of {len(checked)} revalidated",
            f"<= {RATIO_TARGET}x, >= {SPEED_TARGET}x, same, all",
            ok,
        )
    finally:
        for out in runs.values():
            if out.exists():
                drop_states(out)
                subprocess.run([*RST, "gc", str(out)], check=False, stdout=subprocess.DEVNULL)
        if options.keep is None:
            shutil.rmtree(work, ignore_errors=True)
        footer(started)


if __name__ == "__main__":
    sys.exit(main())
