"""pass@k: the unbiased estimator, and its average over tasks per round."""

from __future__ import annotations

from collections import defaultdict
from math import comb

from pydantic import BaseModel, Field

from rst_synth.store import AgentAttemptRow


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k): the chance that k of the n attempts, drawn without replacement,
    include a success (Chen et al. 2021). Needs k <= n."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@{k} needs 0 < k <= n and 0 <= c <= n (n={n}, c={c})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def k_values(k: int) -> list[int]:
    """1, 2, 4, ... up to k, and k itself."""
    values = [1]
    while values[-1] * 2 <= k:
        values.append(values[-1] * 2)
    return values if values[-1] == k else [*values, k]


class RoundPass(BaseModel):
    """One round of one eval: how many tasks, attempts and successes, and pass@k averaged over tasks."""

    round: int
    tasks: int
    attempts: int
    successes: int
    pass_at: dict[int, float] = Field(default_factory=dict)
    """k -> pass@k, over the tasks with at least k attempts."""


def rounds_pass(rows: list[AgentAttemptRow], k: int) -> list[RoundPass]:
    """Per round: pass@k for k in k_values(k), each averaged over the tasks that have k attempts."""
    by_task: dict[tuple[int, str], list[float]] = defaultdict(list)
    for row in rows:
        by_task[(row.round, row.task)].append(row.reward)
    by_round: dict[int, list[list[float]]] = defaultdict(list)
    for (round_, _), rewards in by_task.items():
        by_round[round_].append(rewards)
    out = []
    for round_, tasks in sorted(by_round.items()):
        result = RoundPass(
            round=round_,
            tasks=len(tasks),
            attempts=sum(map(len, tasks)),
            successes=sum(1 for rewards in tasks for r in rewards if r >= 1.0),
        )
        for kk in k_values(k):
            scores = [pass_at_k(len(r), sum(1 for x in r if x >= 1.0), kk) for r in tasks if len(r) >= kk]
            if scores:
                result.pass_at[kk] = sum(scores) / len(scores)
        out.append(result)
    return out
