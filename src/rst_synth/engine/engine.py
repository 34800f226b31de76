"""The recursion: round 0 validates the seeds, round r extends what round r-1 accepted.

Proposals and validations overlap (a bounded pool of each). Every candidate has a stable id
and seed, so a resumed run skips what is finished, redoes what was cut off (an LLM proposer's
on-disk cache answers the calls it already paid for) and never accepts a task twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Protocol

from rst_synth.engine.accept import record_figures
from rst_synth.engine.config import SynthConfig
from rst_synth.engine.novelty import NoveltyIndex
from rst_synth.proposers import Proposal, ProposalError, Proposer, Usage
from rst_synth.store import RunPaths, Store, TaskRow
from rst_synth.task import Metrics, Task, TaskFormatError, TaskPaths
from rst_synth.validator import Check, CheckResult, Reason, ValidationReport, Validator, Verdict

log = logging.getLogger(__name__)
_ROW_METRICS = set(TaskRow.model_fields) & set(Metrics.model_fields)
"""The measured figures a task row copies from the task's [metadata.metrics]."""


class ProgressSink(Protocol):
    """Where the engine reports progress (the CLI draws bars; tests may collect)."""

    def round_started(self, round_: int, planned: int, done: int) -> None: ...
    def candidate_finished(self, round_: int, accepted: bool, spent_usd: float) -> None: ...
    def proposed(self, round_: int) -> None: ...


class _Quiet:
    def round_started(self, round_: int, planned: int, done: int) -> None: ...
    def candidate_finished(self, round_: int, accepted: bool, spent_usd: float) -> None: ...
    def proposed(self, round_: int) -> None: ...


def stable_seed(run_seed: int, name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{name}".encode()).digest()[:4], "big")


class Engine:
    def __init__(self, config: SynthConfig, paths: RunPaths, store: Store, proposer: Proposer,
                 validator: Validator, progress: ProgressSink | None = None) -> None:
        self.config, self.paths, self.store = config, paths, store
        self.proposer, self.validator = proposer, validator
        self.progress = progress or _Quiet()
        self.novelty = NoveltyIndex(config.novelty)
        for task_id, whole, added in store.fingerprints():
            self.novelty.add(task_id, self.novelty.load(whole), self.novelty.load(added))
        self._propose_slots = asyncio.Semaphore(config.proposal_workers)
        self._validate_slots = asyncio.Semaphore(config.validation_workers)
        self._tasks: dict[str, Task] = {}
        self._started = time.monotonic()
        self.stop_reason: str | None = None

    async def run(self) -> str:
        """Run (or resume) every round; returns why it stopped: 'done' or the budget that ran out."""
        self._clean_staging()
        await self._round(0, [(None, i) for i in range(len(self._seed_dirs()))])
        for round_ in range(1, self.config.rounds + 1):
            if self.stop_reason:
                break
            if self.store.round_done(round_):
                continue
            frontier = self.frontier(round_)
            if not frontier:
                self.stop_reason = f"round {round_ - 1} accepted no task to extend"
                break
            await self._round(round_, [(p, j) for p in frontier for j in range(self.config.fanout)])
        return self.stop_reason or "done"

    # -- rounds ---------------------------------------------------------------------------------

    async def _round(self, round_: int, slots: list[tuple[TaskRow | None, int]]) -> None:
        if self.store.round_done(round_):
            return
        self.store.start_round(round_)
        done = sum(1 for c in self.store.candidates(round_) if c.status != "pending")
        self.progress.round_started(round_, len(slots), done)
        await asyncio.gather(*(self._candidate(round_, parent, j) for parent, j in slots))
        if self.stop_reason:
            self.store.stop_round(round_, self.stop_reason)
        else:
            self.store.finish_round(round_)

    def frontier(self, round_: int) -> list[TaskRow]:
        """Round r-1's accepted tasks, capped by sampling round-robin across root seeds."""
        # Sampled over (id, root_id) pairs; only the chosen tasks become TaskRows (building all of a
        # 10,000-task round took about 0.25 s).
        keys = self.store.task_keys(round_ - 1)
        if len(keys) <= self.config.frontier_cap:
            return self.store.tasks(round_ - 1)
        rng = random.Random(stable_seed(self.config.seed, f"frontier-{round_}"))
        by_root: dict[str, list[str]] = defaultdict(list)
        for task_id, root_id in keys:
            by_root[root_id].append(task_id)
        queues = [rng.sample(group, len(group)) for _, group in sorted(by_root.items())]
        rng.shuffle(queues)
        chosen: list[str] = []
        while len(chosen) < self.config.frontier_cap:
            for queue in queues:
                if queue and len(chosen) < self.config.frontier_cap:
                    chosen.append(queue.pop())
        rows = self.store.tasks_by_id(chosen)
        return [rows[task_id] for task_id in chosen]

    def _budget_exhausted(self) -> str | None:
        c = self.config
        if c.max_candidates is not None and self.store.candidate_count() >= c.max_candidates:
            return f"max_candidates ({c.max_candidates}) reached"
        if c.max_usd is not None and self.store.total_cost() >= c.max_usd:
            return f"max_usd (${c.max_usd:g}) reached"
        if c.max_minutes is not None and (time.monotonic() - self._started) / 60 >= c.max_minutes:
            return f"max_minutes ({c.max_minutes:g}) reached"
        return None

    # -- one candidate --------------------------------------------------------------------------

    async def _candidate(self, round_: int, parent_row: TaskRow | None, index: int) -> None:
        seed_dir = self._seed_dirs()[index] if parent_row is None else None
        cid = f"r00-{seed_dir.name}" if seed_dir else f"r{round_:02d}-{parent_row.id}-{index}"  # type: ignore[union-attr]
        existing = self.store.candidate(cid)
        if existing is not None and existing.status != "pending":
            return
        if existing is None:
            self.stop_reason = self.stop_reason or self._budget_exhausted()
            if self.stop_reason:
                return
            self.store.add_candidate(cid, round_, parent_row.id if parent_row else None,
                                     stable_seed(self.config.seed, cid))
        seed = self.store.candidate(cid).seed  # type: ignore[union-attr]
        if seed_dir is not None:
            await self._validate_seed(cid, seed_dir)
            return
        parent = self._load(parent_row)  # type: ignore[arg-type]
        paid = Usage()  # what this candidate's proposals have cost so far (proposers report it cumulatively)
        try:
            async with self._propose_slots:
                proposal = await self.proposer.propose(parent, seed=seed)
            paid = self._spend(cid, proposal.usage, paid, "propose")
            self.progress.proposed(round_)
            for attempt in range(self.config.repairs + 1):
                report = await self._validate(proposal.task, parent)
                self.store.record_attempt(cid, attempt, report.summary(), report.accepted)
                if report.accepted:
                    await self._accept(cid, round_, proposal, parent, parent_row, report, attempt)  # type: ignore[arg-type]
                    return
                if attempt < self.config.repairs:
                    async with self._propose_slots:
                        proposal = await self.proposer.repair(parent, proposal, report, attempt=attempt + 1)
                    paid = self._spend(cid, proposal.usage, paid, "repair")
        except ProposalError as exc:
            if exc.usage is not None:
                self._spend(cid, exc.usage, paid, "failed")
            log.info("candidate %s: no proposal", cid, extra={"fields": {"candidate": cid, "reason": exc.reason}})
            self.store.reject_candidate(cid, "propose", exc.reason, exc.detail)
            self.progress.candidate_finished(round_, False, 0.0)
            return
        failure = report.first_failure
        status = "error" if failure and failure.verdict is Verdict.ERROR else "rejected"
        log.info("candidate %s %s", cid, status, extra={"fields": {
            "candidate": cid, "check": failure.check.value if failure else None,
            "reason": failure.reason.value if failure else None, "attempts": self.config.repairs + 1}})
        self.store.reject_candidate(cid, failure.check.value if failure else "?", failure.reason.value if failure else "?",
                                    failure.detail if failure else "", status=status)
        self.progress.candidate_finished(round_, False, proposal.usage.cost_usd)

    async def _validate(self, task: Task, parent: Task | None) -> ValidationReport:
        async with self._validate_slots:
            report = await self.validator.validate(task, parent)
        if report.accepted and parent is not None:
            whole, added = self.novelty.fingerprints(task, parent)
            twin = self.novelty.duplicate_of(whole, added) or (task.short_name if self.store.task(task.short_name) else None)
            verdict = Verdict.FAIL if twin else Verdict.PASS
            report.checks.append(CheckResult(check=Check.NOVELTY, verdict=verdict,
                                             reason=Reason.NEAR_DUPLICATE if twin else Reason.OK,
                                             detail=f"near-duplicate of {twin}" if twin else ""))
        return report

    async def _validate_seed(self, cid: str, seed_dir: Path) -> None:
        try:
            task = Task.load(seed_dir)
        except TaskFormatError as exc:
            self.store.reject_candidate(cid, "static", "bad_task", str(exc))
            return
        report = await self._validate(task, None)
        self.store.record_attempt(cid, 0, report.summary(), report.accepted)
        if not report.accepted:
            failure = report.first_failure
            self.store.reject_candidate(cid, failure.check.value, failure.reason.value, failure.detail)  # type: ignore[union-attr]
            log.warning("seed %s rejected: %s", seed_dir, failure)
            self.progress.candidate_finished(0, False, 0.0)
            return
        record_figures(task, report, 0)
        task_id = seed_dir.name
        target = self.paths.task_dir(0, task_id)
        task.save(target, overwrite=True)
        whole, added = self.novelty.fingerprints(task, None)
        self._store_accepted(cid, task, task_id, 0, None, task_id, target, whole, added)  # a seed is its own root

    async def _accept(self, cid: str, round_: int, proposal: Proposal, parent: Task, parent_row: TaskRow,
                      report: ValidationReport, attempt: int) -> None:
        task = proposal.task
        record_figures(task, report, attempt, proposal)
        task_id = task.short_name
        target = self.paths.task_dir(round_, task_id)
        lineage = task.config.metadata.lineage
        if lineage is not None:
            lineage.parent_path = os.path.relpath(self.paths.root / parent_row.path, target)
        task.save(target, overwrite=True)  # complete on disk before the store knows it
        whole, added = self.novelty.fingerprints(task, parent)
        self._store_accepted(cid, task, task_id, round_, parent_row.id, parent_row.root_id, target, whole, added)

    def _store_accepted(self, cid: str, task: Task, task_id: str, round_: int, parent_id: str | None,
                        root_id: str, target: Path, whole, added) -> None:  # type: ignore[no-untyped-def]
        metrics = task.config.metadata.metrics
        lineage = task.config.metadata.lineage
        row = TaskRow(id=task_id, name=task.name, round=round_, parent_id=parent_id,
                      root_id=root_id, path=str(target.relative_to(self.paths.root)),
                      proposer=lineage.proposer if lineage else None, steps=lineage.steps if lineage else [],
                      **(metrics.model_dump(include=_ROW_METRICS) if metrics else {}))
        self.store.accept(cid, row, NoveltyIndex.dump(whole), NoveltyIndex.dump(added))
        log.info("candidate %s accepted as %s", cid, task_id, extra={"fields": {
            "candidate": cid, "task": task_id, "round": round_, "solution_lines": row.solution_lines,
            "executed_commands": row.executed_commands}})
        self.novelty.add(task_id, whole, added)
        self.progress.candidate_finished(round_, True, metrics.cost_usd or 0.0 if metrics else 0.0)

    def _spend(self, cid: str, total: Usage, paid: Usage, stage: str) -> Usage:
        """Record what `total` adds to what was already recorded as `paid`; returns the new total."""
        calls, cached = total.calls - paid.calls, total.cached_calls - paid.cached_calls
        tokens_in, tokens_out = total.tokens_in - paid.tokens_in, total.tokens_out - paid.tokens_out
        cost = total.cost_usd - paid.cost_usd
        if calls > 0 or cost > 0:
            self.store.add_usage(cid, tokens_in, tokens_out, cost)
            self.store.record_llm_calls(cid, stage, calls, cached, tokens_in, tokens_out, cost)
        return total

    def _load(self, row: TaskRow) -> Task:
        if row.id not in self._tasks:
            self._tasks[row.id] = Task.load(self.paths.root / row.path)
        return self._tasks[row.id]

    def _seed_dirs(self) -> list[Path]:
        root = Path(self.config.seeds_dir)
        return sorted(p for p in root.iterdir() if (p / TaskPaths.CONFIG).is_file())

    def _clean_staging(self) -> None:
        """Half-written task directories of a killed run (Task.save stages under a dot-name)."""
        import shutil

        if self.paths.tasks_dir.is_dir():
            for staging in self.paths.tasks_dir.glob("r*/.*.tmp-*"):
                shutil.rmtree(staging, ignore_errors=True)
