"""The soak: many candidates through the real Engine (fake or real sandbox), then what it left.

Used by tests/engine/test_soak.py (1,000 candidates on the fakes, a few on the real engine) and by
bench/soak.py (the same with larger counts and a printed table)."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from rst_synth.engine import Engine, SynthConfig
from rst_synth.proposers import Proposal, Usage
from rst_synth.sandbox import Sandbox
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from rst_synth.validator import Validator, ValidatorConfig
from tests.support.fakes import FakeProposer, touch_test
from tests.support.tasks import write_task


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class MixedProposer(FakeProposer):
    """The fake proposer, with every fifth child broken (its test wants a file it never makes), so
    a soak sees rejections as well as acceptances."""

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        self._count(f"propose:{parent.short_name}:{seed}")
        return self._proposal(parent, seed, Usage(calls=1), broken=seed % 5 == 0)


@dataclass
class RssAt:
    """A ProgressSink that notes RSS when the finished candidates reach each mark."""

    marks: tuple[int, ...]
    finished: int = 0
    rss: dict[int, float] = field(default_factory=dict)

    def round_started(self, round_: int, planned: int, done: int) -> None: ...
    def proposed(self, round_: int) -> None: ...

    def candidate_finished(self, round_: int, accepted: bool, spent_usd: float) -> None:
        self.finished += 1
        if self.finished in self.marks:
            self.rss[self.finished] = round(rss_mb(), 1)


@dataclass
class SoakResult:
    candidates: int
    accepted: int
    rejected: int
    errors: int
    pending: int
    seconds: float
    rss_mb: dict[int, float]
    store_tasks: int
    disk_tasks: int
    staging_left: int

    @property
    def store_and_disk_agree(self) -> bool:
        return self.store_tasks == self.disk_tasks and self.pending == 0 and self.staging_left == 0


def write_seeds(root: Path, count: int) -> Path:
    """`count` tiny seeds the fakes and a real container both run: touch a file, test it exists."""
    seeds = root / "seeds"
    for k in range(count):
        write_task(
            seeds, name=f"seed{k}", solve=f"touch /app/seed{k}\n", tests={"test_s.py": touch_test(f"/app/seed{k}")}
        )
    return seeds


def soak(run: Path, seeds: Path, sandbox: Sandbox, total: int, marks: tuple[int, ...], workers: int = 4) -> SoakResult:
    """Run candidates until `total` were started (the max_candidates budget), then count."""
    config = SynthConfig(
        seeds_dir=str(seeds),
        rounds=1000,
        fanout=2,
        frontier_cap=64,
        repairs=0,
        max_candidates=total,
        proposal_workers=workers,
        validation_workers=workers,
    )
    paths = RunPaths(run)
    paths.root.mkdir(parents=True, exist_ok=True)
    store = Store(paths.db)
    sink = RssAt(marks)
    validator = Validator(sandbox, ValidatorConfig(max_containers=2 * workers))
    started = time.monotonic()
    try:
        asyncio.run(Engine(config, paths, store, MixedProposer(), validator, sink).run())
        seconds = time.monotonic() - started
        rows = store.candidates()
        on_disk = {p.name for p in paths.tasks_dir.glob("r*/*") if not p.name.startswith(".")}
        return SoakResult(
            candidates=len(rows),
            accepted=sum(r.status == "accepted" for r in rows),
            rejected=sum(r.status == "rejected" for r in rows),
            errors=sum(r.status == "error" for r in rows),
            pending=sum(r.status == "pending" for r in rows),
            seconds=round(seconds, 1),
            rss_mb=sink.rss,
            store_tasks=len({t.id for t in store.tasks()} & on_disk),
            disk_tasks=len(on_disk),
            staging_left=len(list(paths.tasks_dir.glob("r*/.*"))),
        )
    finally:
        store.close()


def unique_run_label() -> str:
    """A label of this process's own containers, for counting leaks on a shared engine."""
    os.environ.setdefault("RST_RUN_LABEL", f"soak-{os.getpid()}-{int(time.time())}")
    return os.environ["RST_RUN_LABEL"]
