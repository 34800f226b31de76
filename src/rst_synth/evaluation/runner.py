"""`rst eval`'s runner: K attempts of one agent on each task, N at a time, resumable.

An attempt is finished once its row is in the store, and the row is written only after the
attempt's trajectory.json and result.json are on disk; a resumed eval runs only the attempts that
have no row. A model's replies are cached under the eval's folder, so an attempt cut off by a kill
replays its paid calls from the cache instead of paying them again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rst_synth.agents import Agent, AttemptLimits, AttemptResult
from rst_synth.executors import Executor, LocalExecutor
from rst_synth.progress import Quiet
from rst_synth.sandbox import Sandbox, SandboxError
from rst_synth.seeds import stable_seed
from rst_synth.store import AgentAttemptRow, Store
from rst_synth.task import Task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvalTask:
    """A task to evaluate: its key in the store, its round and where it lives."""

    key: str
    round: int
    path: Path

    @property
    def folder(self) -> str:
        """The attempts' folder name: the key when it is a plain id, else a readable name and a hash."""
        if re.fullmatch(r"[A-Za-z0-9._-]+", self.key):
            return self.key
        digest = hashlib.sha256(self.key.encode()).hexdigest()[:8]
        return f"{re.sub(r'[^A-Za-z0-9._-]+', '_', self.path.name)[:60]}-{digest}"


def eval_id(agent: str, model: str) -> str:
    """<agent>-<model>, safe as a folder name."""
    raw = f"{agent}-{model}" if model else agent
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)


def attempt_row(
    result: AttemptResult, eval_name: str, task: str, round_: int, path: str, agent: str | None, model: str | None
) -> AgentAttemptRow:
    """A finished attempt as the store keeps it (`agent_attempts`), for `rst eval` and the solver alike:
    `task` is its key in the store, `path` its folder relative to the store's."""
    return AgentAttemptRow(
        eval_id=eval_name,
        task=task,
        round=round_,
        attempt=result.attempt,
        reward=result.reward,
        ended=result.ended,
        steps=result.steps,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        cost_usd=result.cost_usd,
        seconds=result.seconds,
        path=path,
        agent=agent,
        model=model,
        step_rewards=result.step_rewards,
        reason=result.reason,
        reason_detail=result.reason_detail or None,
    )


class EvalProgress(Protocol):
    def attempt_finished(self, result: AttemptResult) -> None: ...


async def run_eval(
    tasks: list[EvalTask],
    agent: Agent,
    sandbox: Sandbox,
    store: Store,
    *,
    eval_name: str,
    k: int,
    jobs: int,
    root: Path,
    out_dir: Path,
    limits: AttemptLimits | None = None,
    max_usd: float | None = None,
    progress: EvalProgress | None = None,
    executor: Executor | None = None,
    load: Callable[[EvalTask], Task] | None = None,
) -> str:
    """Run every missing attempt; returns why it stopped ("done" or the budget that ran out).

    `root` is the store's folder (attempt paths are recorded relative to it); attempts are written
    under `out_dir`/<task folder>/attempt-<i>/. `executor` runs the attempts (default: in process, on
    `sandbox`); each is keyed `<eval>:<task>:<attempt>`. `load` gives the task an item is evaluated
    as (default: its directory as it is; `rst eval` passes the flat form with per-step credit, or
    the multi-step form), once per item."""
    progress = progress or Quiet()
    load = load or (lambda item: Task.load(item.path))
    runner = executor or LocalExecutor(sandbox)
    finished = {(row.task, row.attempt) for row in store.agent_attempts(eval_name)}
    slots = asyncio.Semaphore(jobs)
    stop: list[str] = []
    loaded: dict[str, Task] = {}

    async def one(item: EvalTask, attempt: int) -> None:
        async with slots:
            if stop:
                return
            if max_usd is not None and store.eval_spend(eval_name) >= max_usd:
                stop.append(f"max_usd (${max_usd:g}) reached")
                return
            task = loaded.get(item.key) or loaded.setdefault(item.key, load(item))
            target = out_dir / item.folder / f"attempt-{attempt}"
            seed = stable_seed(0, f"{eval_name}:{item.key}:{attempt}")
            try:
                result = await runner.attempt(
                    task,
                    agent,
                    attempt=attempt,
                    seed=seed,
                    out_dir=target,
                    limits=limits,
                    key=f"{eval_name}:{item.key}:{attempt}",
                )
            except SandboxError as exc:  # the image does not build: a 0 the task earned, not a retry
                log.warning("attempt %s/%d: %s", item.key, attempt, exc)
                result = AttemptResult(
                    task=task.name,
                    attempt=attempt,
                    reward=0.0,
                    ended="sandbox_error",
                    steps=0,
                    verifier_output=str(exc)[:2000],
                )
            path = str(target.relative_to(root))
            row = attempt_row(result, eval_name, item.key, item.round, path, agent.name, agent.model or None)
            store.record_agent_attempt(row)
            progress.attempt_finished(result)

    await asyncio.gather(
        *(one(item, attempt) for item in tasks for attempt in range(k) if (item.key, attempt) not in finished)
    )
    return stop[0] if stop else "done"
