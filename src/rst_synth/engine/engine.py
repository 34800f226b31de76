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
import shutil
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rst_synth.engine.accept import record_figures
from rst_synth.engine.candidate import CandidateOutcome, CandidatePipeline, rejection_of
from rst_synth.engine.checks import CandidateCheck, NoveltyCheck, SolvableCheck
from rst_synth.engine.config import SynthConfig
from rst_synth.engine.frontier import frontier
from rst_synth.engine.novelty import NoveltyIndex
from rst_synth.engine.second import second_solution_check
from rst_synth.evaluation.evidence import solver_evidence
from rst_synth.evaluation.runner import attempt_row
from rst_synth.evaluation.solver import Judgement, Solver
from rst_synth.executors import Executor
from rst_synth.progress import Quiet
from rst_synth.proposers import Proposer, Usage
from rst_synth.seeds import stable_seed
from rst_synth.store import AgentAttemptRow, RunPaths, Store, TaskRow
from rst_synth.task import Figures, Task, TaskFormatError, TaskPaths
from rst_synth.validator import Check, Reason, ValidationReport, Validator

if TYPE_CHECKING:
    from datasketch import MinHash

log = logging.getLogger(__name__)


class ProgressSink(Protocol):
    """Where the engine reports progress (the CLI draws bars; tests may collect)."""

    def round_started(self, round_: int, planned: int, done: int) -> None: ...
    def candidate_finished(self, round_: int, accepted: bool, spent_usd: float) -> None: ...
    def proposed(self, round_: int) -> None: ...


class Engine:
    """Runs (or resumes) the rounds of one run directory; the only writer of its store."""

    def __init__(
        self,
        config: SynthConfig,
        paths: RunPaths,
        store: Store,
        proposer: Proposer,
        validator: Validator,
        progress: ProgressSink | None = None,
        solver: Solver | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.config, self.paths, self.store = config, paths, store
        self.progress = progress or Quiet()
        self.novelty = NoveltyIndex(config.novelty)
        for task_id, whole, added in store.fingerprints():
            self.novelty.add(task_id, self.novelty.load(whole), self.novelty.load(added))
        checks: list[CandidateCheck] = [second_solution_check(proposer, validator)] if config.second_solution_on else []
        checks.append(NoveltyCheck(self.novelty, known=lambda name: store.task(name) is not None))
        if solver is not None:
            checks.append(SolvableCheck(solver))
        self.pipeline = CandidatePipeline(
            proposer,
            validator,
            repairs=config.repairs,
            checks=checks,
            propose_slots=config.proposal_workers,
            validate_slots=config.validation_workers,
            executor=executor,
        )
        self._tasks: dict[str, Task] = {}
        self._started = time.monotonic()
        self.stop_reason: str | None = None

    async def run(self) -> str:
        """Run (or resume) every round; returns why it stopped: 'done' or the budget that ran out."""
        self._clean_staging()
        seeds = self._seed_dirs()
        await self._round(0, [self._seed_candidate(seed_dir) for seed_dir in seeds])
        for round_ in range(1, self.config.rounds + 1):
            if self.stop_reason:
                break
            if self.store.round_done(round_):
                continue
            parents = frontier(self.store, round_, cap=self.config.frontier_cap, run_seed=self.config.seed)
            if not parents:
                self.stop_reason = f"round {round_ - 1} accepted no task to extend"
                break
            await self._round(
                round_,
                [self._child_candidate(round_, parent, j) for parent in parents for j in range(self.config.fanout)],
            )
        return self.stop_reason or "done"

    # -- rounds ---------------------------------------------------------------------------------

    async def _round(self, round_: int, candidates: list[Coroutine[Any, Any, None]]) -> None:
        if self.store.round_done(round_):
            for pending in candidates:
                pending.close()
            return
        self.store.start_round(round_)
        done = sum(1 for c in self.store.candidates(round_) if c.status != "pending")
        self.progress.round_started(round_, len(candidates), done)
        await asyncio.gather(*candidates)
        if self.stop_reason:
            self.store.stop_round(round_, self.stop_reason)
        else:
            self.store.finish_round(round_)

    def _budget_exhausted(self) -> str | None:
        c = self.config
        if c.max_candidates is not None and self.store.candidate_count() >= c.max_candidates:
            return f"max_candidates ({c.max_candidates}) reached"
        if c.max_usd is not None and self.store.total_cost() >= c.max_usd:
            return f"max_usd (${c.max_usd:g}) reached"
        if c.max_minutes is not None and (time.monotonic() - self._started) / 60 >= c.max_minutes:
            return f"max_minutes ({c.max_minutes:g}) reached"
        return None

    def _open(self, cid: str, round_: int, parent_id: str | None, seed_key: str = "") -> int | None:
        """The candidate's seed (drawn from `seed_key`, else its id) when it still has to run; None when it is
        finished or the budget is spent."""
        existing = self.store.candidate(cid)
        if existing is not None:
            return existing.seed if existing.status == "pending" else None
        self.stop_reason = self.stop_reason or self._budget_exhausted()
        if self.stop_reason:
            return None
        seed = stable_seed(self.config.seed, seed_key or cid)
        self.store.add_candidate(cid, round_, parent_id, seed)
        return seed

    # -- one candidate --------------------------------------------------------------------------

    async def _child_candidate(self, round_: int, parent_row: TaskRow, index: int) -> None:
        cid = f"r{round_:02d}-{parent_row.id}-{index}"
        existing = self.store.candidate(cid)
        if existing is not None and existing.status != "pending":
            return
        parent = self._load(parent_row)
        seed = self._open(cid, round_, parent_row.id, child_seed_key(round_, parent, index) or cid)
        if seed is None:
            return
        outcome = await self.pipeline.run(parent, seed=seed, events=_StoreEvents(self, cid, round_), key=cid)
        if outcome.accepted and outcome.proposal is not None:
            self._accept(cid, round_, outcome.proposal.task, parent, parent_row, outcome.judgement)
            return
        self._reject(cid, round_, outcome)

    async def _seed_candidate(self, seed_dir: Path) -> None:
        cid = f"r00-{seed_dir.name}"
        if self._open(cid, 0, None) is None:
            return
        try:
            task = Task.load(seed_dir)
        except TaskFormatError as exc:
            self.store.reject_candidate(cid, Check.STATIC, Reason.BAD_TASK, str(exc))
            self.progress.candidate_finished(0, False, 0.0)
            return
        report = await self.pipeline.validate(task, None, key=cid)
        self.store.record_attempt(cid, 0, report.summary(), report.accepted)
        if not report.accepted:
            log.warning("seed %s rejected: %s", seed_dir, report.first_failure)
            self._reject(cid, 0, CandidateOutcome(report=report, attempts=1))
            return
        record_figures(task, report, 0)
        task_id = seed_dir.name
        target = self.paths.task_dir(0, task_id)
        task.save(target, overwrite=True)
        whole, added = self.novelty.fingerprints(task, None)
        self._store_accepted(cid, task, task_id, 0, None, task_id, target, whole, added)  # a seed is its own root

    def _reject(self, cid: str, round_: int, outcome: CandidateOutcome) -> None:
        rejection = outcome.rejection or rejection_of(outcome.verdict)
        log.info(
            "candidate %s %s",
            cid,
            rejection.status,
            extra={
                "fields": {
                    "candidate": cid,
                    "check": rejection.check.value,
                    "reason": rejection.reason.value,
                    "attempts": outcome.attempts,
                }
            },
        )
        self.store.reject_candidate(cid, rejection.check, rejection.reason, rejection.detail, status=rejection.status)
        self.progress.candidate_finished(round_, False, outcome.proposal.usage.cost_usd if outcome.proposal else 0.0)

    def _accept(
        self, cid: str, round_: int, task: Task, parent: Task, parent_row: TaskRow, judgement: Judgement | None
    ) -> None:
        task_id = task.short_name
        target = self.paths.task_dir(round_, task_id)
        lineage = task.config.metadata.lineage
        if lineage is not None:
            lineage.parent_path = os.path.relpath(self.paths.root / parent_row.path, target)
        task.save(target, overwrite=True)  # complete on disk before the store knows it
        whole, added = self.novelty.fingerprints(task, parent)
        solver_rows = self._solver_rows(judgement, task_id, round_)
        self._store_accepted(
            cid, task, task_id, round_, parent_row.id, parent_row.root_id, target, whole, added, solver_rows
        )

    def _solver_rows(self, judgement: Judgement | None, task_id: str, round_: int) -> list[AgentAttemptRow]:
        """The solver's attempts on an accepted task as rows of the eval `solver-<model>`, so pass@k per
        round shows in `rst stats` and `rst report` as for `rst eval`."""
        if judgement is None:
            return []
        rate, root = judgement.rate, self.paths.root
        return [
            attempt_row(
                a.result, judgement.eval_id, task_id, round_, os.path.relpath(a.path, root), rate.agent, rate.model
            )
            for a in judgement.attempts
        ]

    def _store_accepted(
        self,
        cid: str,
        task: Task,
        task_id: str,
        round_: int,
        parent_id: str | None,
        root_id: str,
        target: Path,
        whole: MinHash,
        added: MinHash,
        solver_rows: list[AgentAttemptRow] | None = None,
    ) -> None:
        metrics = task.config.metadata.metrics
        lineage = task.config.metadata.lineage
        figures = metrics.model_dump(include=set(Figures.model_fields)) if metrics else {}
        row = TaskRow(
            id=task_id,
            name=task.name,
            round=round_,
            parent_id=parent_id,
            root_id=root_id,
            path=str(target.relative_to(self.paths.root)),
            proposer=lineage.proposer if lineage else None,
            steps=lineage.steps if lineage else [],
            **figures,
        )
        self.store.accept(cid, row, NoveltyIndex.dump(whole), NoveltyIndex.dump(added), solver_rows or [])
        log.info(
            "candidate %s accepted as %s",
            cid,
            task_id,
            extra={
                "fields": {
                    "candidate": cid,
                    "task": task_id,
                    "round": round_,
                    "solution_lines": row.solution_lines,
                    "executed_commands": row.executed_commands,
                }
            },
        )
        self.novelty.add(task_id, whole, added)
        self.progress.candidate_finished(round_, True, (metrics.cost_usd or 0.0) if metrics else 0.0)

    def _load(self, row: TaskRow) -> Task:
        if row.id not in self._tasks:
            task = Task.load(self.paths.root / row.path)
            self._read_attempts(task, row.id)
            self._tasks[row.id] = task
        return self._tasks[row.id]

    def _read_attempts(self, task: Task, task_id: str) -> None:
        """Give each solve rate of `task` the evidence of its attempts in the store (in memory only), so
        the extend prompt of a child says how the agent did on its parent."""
        for key, rate in (task.config.metadata.solve_rate or {}).items():
            rows = self.store.agent_attempts(key, task=task_id)
            if rows:
                rate.evidence = solver_evidence([(r.reward, self.paths.root / r.path) for r in rows])

    def _seed_dirs(self) -> list[Path]:
        root = Path(self.config.seeds_dir)
        return sorted(p for p in root.iterdir() if (p / TaskPaths.CONFIG).is_file())

    def _clean_staging(self) -> None:
        """Half-written task directories of a killed run (Task.save stages under a dot-name)."""
        if self.paths.tasks_dir.is_dir():
            for staging in self.paths.tasks_dir.glob("r*/.*.tmp-*"):
                shutil.rmtree(staging, ignore_errors=True)


def child_seed_key(round_: int, parent: Task, index: int) -> str:
    """What a child candidate's seed follows when its parent is a child itself: the parent's lineage (root,
    every step's operator, inputs and outputs) and its instruction, not its name, which digests its solution
    and tests: generated code laid out anew must not change the draws of every descendant. Empty for a seed
    parent, whose name is its folder's (stable already)."""
    lineage = parent.config.metadata.lineage
    if lineage is None or lineage.round == 0 or not lineage.root:
        return ""
    steps = [(h.name, h.consumes, h.produces) for h in lineage.history]
    identity = repr((lineage.root, lineage.round, steps, parent.instruction))
    return f"r{round_:02d}-{hashlib.sha256(identity.encode()).hexdigest()[:16]}-{index}"


class _StoreEvents:
    """A candidate's progress written to the store as it happens, so a kill loses no paid call."""

    def __init__(self, engine: Engine, cid: str, round_: int) -> None:
        self.engine, self.cid, self.round = engine, cid, round_

    def spent(self, stage: str, usage: Usage) -> None:
        store = self.engine.store
        store.add_usage(self.cid, usage.tokens_in, usage.tokens_out, usage.cost_usd)
        store.record_llm_calls(
            self.cid,
            stage,
            usage.calls,
            usage.cached_calls,
            usage.tokens_in,
            usage.tokens_out,
            usage.cost_usd,
            {name: (c.calls, c.tokens_in, c.tokens_out) for name, c in usage.chat_stages.items()},
        )

    def proposed(self) -> None:
        self.engine.progress.proposed(self.round)

    def validated(self, attempt: int, report: ValidationReport) -> None:
        self.engine.store.record_attempt(self.cid, attempt, report.summary(), report.accepted)
