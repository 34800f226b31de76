"""Per-round statistics of a run (docs/measures.md), computed from the store alone."""

from __future__ import annotations

import json
import sqlite3
import statistics
from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from rst_synth.store import AgentAttemptRow, Store
from rst_synth.validator.models import QUALITY_CHECKS as _QUALITY
from rst_synth.validator.models import Check

CHECKS = ("static", "build", "oracle", "nop", "determinism", "parent", "novelty")
QUALITY_CHECKS = tuple(c.value for c in _QUALITY)
"""The quality checks (validator/quality.py), shown in a table of their own."""


class ChatStageTokens(BaseModel):
    """A chat stage's tokens per accepted task of its round."""

    tokens_in: float
    """Prompt tokens."""
    tokens_out: float
    """Completion tokens."""


class RoundStats(BaseModel):
    round: int
    status: str
    """done, running (cut off or still going), or stopped: <why>."""
    candidates: int = 0
    accepted: int = 0
    rejected: int = 0
    errors: int = 0
    pending: int = 0
    yield_rate: float | None = Field(default=None, serialization_alias="yield")
    """accepted / finished candidates."""
    pass_rates: dict[str, float | None] = Field(default_factory=dict)
    """Per check: passes / attempts in which it ran (skips excluded)."""
    median_solution_lines: float | None = None
    median_executed_commands: float | None = None
    median_oracle_sec: float | None = None
    median_kill_rate: float | None = None
    """Over the accepted tasks whose mutation check edited a new output."""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    tokens_per_accepted: float | None = None
    stage_tokens_per_accepted: dict[str, float] = Field(default_factory=dict)
    """Tokens per accepted task by the stage that spent them (propose, repair, second, failed)."""
    chat_stage_tokens_per_accepted: dict[str, ChatStageTokens] = Field(default_factory=dict)
    """The same tokens by the chat stage whose prompt they were spent on (extend, realign_tests,
    realign_instruction, repair, reask, second_solution); empty for calls of older versions."""
    cost_per_accepted: float | None = None
    llm_calls: int = 0
    llm_cache_hits: int = 0
    rejections: dict[str, int] = Field(default_factory=dict)
    """`check:reason` -> candidates rejected for it."""
    second_solution_share: float | None = None
    """Of the candidates whose second solution ran (engine/second.py), the share whose second solution
    passed in one of their attempts; None where it never ran."""
    quality_rejections: dict[str, int] = Field(default_factory=dict)
    """Per quality check: candidates whose final rejection it gave."""
    bookkeeping_share: float | None = None
    """Bookkeeping steps over all steps of the lineages of the round's tasks (None: not computed)."""
    operators: dict[str, int] = Field(default_factory=dict)
    """Steps the round's tasks added, per operator (or workflow theme), most used first."""
    step_credit: dict[str, float] = Field(default_factory=dict)
    """Per eval id: the mean per-step credit of its attempts on the round's tasks (`step_credit`)."""


def run_stats(store: Store, bookkeeping: frozenset[str] | None = None) -> list[RoundStats]:
    """Per-round statistics; `bookkeeping` names the bookkeeping operators (the report takes them as
    data, it does not know the proposers), without it the bookkeeping share stays None."""
    rounds = {row["round"]: row for row in store.rounds()}
    verdicts: dict[int, list[sqlite3.Row]] = defaultdict(list)
    for row in store.check_verdict_counts():  # every round in one query
        verdicts[row["round"]].append(row)
    stats = [_round(store, r, rounds[r], verdicts[r]) for r in sorted(rounds)]
    second = store.check_candidates(Check.SECOND_SOLUTION.value)
    for s in stats:
        ran, passed = second.get(s.round, (0, 0))
        s.second_solution_share = passed / ran if ran else None
    _step_figures(store, stats, bookkeeping)
    attempts = store.agent_attempts()
    for eval_id in sorted({row.eval_id for row in attempts}):
        credit = step_credit([row for row in attempts if row.eval_id == eval_id])
        for s in stats:
            if s.round in credit:
                s.step_credit[eval_id] = credit[s.round]
    return stats


def attempt_credit(row: AgentAttemptRow) -> float | None:
    """An attempt's per-step credit: the mean of its steps' rewards (a step the gate stopped before
    it ran counts 0), None for an attempt whose task has no steps."""
    if not row.step_rewards:
        return None
    return sum(r or 0.0 for r in row.step_rewards.values()) / len(row.step_rewards)


def step_credit(rows: list[AgentAttemptRow]) -> dict[int, float]:
    """Per round: the mean per-step credit over the attempts that have one; the partial credit of a
    long task beside pass@k, which counts whole solutions only."""
    by_round: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        credit = attempt_credit(row)
        if credit is not None:
            by_round[row.round].append(credit)
    return {round_: sum(values) / len(values) for round_, values in sorted(by_round.items())}


def _step_figures(store: Store, stats: list[RoundStats], bookkeeping: frozenset[str] | None) -> None:
    """Operators used per round, and the bookkeeping share of whole lineages (a task stores only the
    steps it added; its ancestors' rows hold the rest)."""
    rows = {r["id"]: (r["parent_id"], r["round"], json.loads(r["steps"] or "[]")) for r in store.task_steps()}
    whole: dict[str, list[str]] = {}

    def lineage(task_id: str) -> list[str]:
        chain, at = [], task_id
        while at in rows and at not in whole and at not in chain:
            chain.append(at)
            at = rows[at][0] or ""
        steps = list(whole.get(at, []))
        for node in reversed(chain):
            steps = steps + rows[node][2]
            whole[node] = steps
        return whole.get(task_id, [])

    by_round = {s.round: s for s in stats}
    counted: dict[int, tuple[int, int]] = {}
    used: dict[int, Counter[str]] = defaultdict(Counter)
    for task_id, (_, round_, steps) in sorted(rows.items()):
        used[round_].update(steps)
        everything = lineage(task_id)
        total, marked = counted.get(round_, (0, 0))
        counted[round_] = (total + len(everything), marked + sum(s in (bookkeeping or ()) for s in everything))
    for round_, s in by_round.items():
        s.operators = dict(used[round_].most_common())
        total, marked = counted.get(round_, (0, 0))
        s.bookkeeping_share = marked / total if bookkeeping is not None and total else None


def _median(values: list[float | int | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def _round(store: Store, round_: int, row: sqlite3.Row, verdicts: list[sqlite3.Row]) -> RoundStats:
    # Aggregated in SQL, not a CandidateRow/TaskRow model per row: building the models was most of
    # the time of `rst stats` on a run of 100,000 tasks.
    by_status, costs, reasons = store.candidate_summary(round_)
    status_counts = Counter({r["status"]: r["n"] for r in by_status})
    tasks = store.task_figures(round_)
    candidates = sum(status_counts.values())
    finished = candidates - status_counts["pending"]
    status = row["status"] if not row["stop_reason"] else f"stopped: {row['stop_reason']}"
    stats = RoundStats(
        round=round_,
        status=status,
        candidates=candidates,
        accepted=status_counts["accepted"],
        rejected=status_counts["rejected"],
        errors=status_counts["error"],
        pending=status_counts["pending"],
        yield_rate=status_counts["accepted"] / finished if finished else None,
        median_solution_lines=_median([t["solution_lines"] for t in tasks]),
        median_executed_commands=_median([t["executed_commands"] for t in tasks]),
        median_oracle_sec=_median([t["oracle_sec"] for t in tasks]),
        median_kill_rate=_median([t["kill_rate"] for t in tasks]),
        tokens_in=sum(r["tokens_in"] or 0 for r in by_status),
        tokens_out=sum(r["tokens_out"] or 0 for r in by_status),
        cost_usd=round(sum(costs), 6),
        rejections=_rejections(reasons),
    )
    stats.pass_rates = _pass_rates(verdicts)
    stats.quality_rejections = {
        check: sum(n for key, n in stats.rejections.items() if key.split(":", 1)[0] == check)
        for check in QUALITY_CHECKS
    }
    if stats.accepted:
        stats.tokens_per_accepted = (stats.tokens_in + stats.tokens_out) / stats.accepted
        stats.stage_tokens_per_accepted = {k: n / stats.accepted for k, n in store.stage_tokens(round_).items()}
        stats.chat_stage_tokens_per_accepted = {
            k: ChatStageTokens(tokens_in=i / stats.accepted, tokens_out=o / stats.accepted)
            for k, (i, o) in store.chat_stage_tokens(round_).items()
        }
        stats.cost_per_accepted = stats.cost_usd / stats.accepted
    calls = store.llm_calls(round_)
    stats.llm_calls, stats.llm_cache_hits = calls["calls"], calls["cache_hits"]
    return stats


def _rejections(reasons: list[sqlite3.Row]) -> dict[str, int]:
    """`check:reason` -> count, most common first, ties in order of first candidate id (as
    Counter.most_common over the candidates in id order gives)."""
    merged: dict[str, tuple[int, str]] = {}
    for r in reasons:
        key = f"{r['rejection_check']}:{r['rejection_reason']}"
        n, first = merged.get(key, (0, r["first_id"]))
        merged[key] = (n + r["n"], min(first, r["first_id"]))
    return {key: n for key, (n, _) in sorted(merged.items(), key=lambda item: (-item[1][0], item[1][1]))}


def _pass_rates(rows: list[sqlite3.Row]) -> dict[str, float | None]:
    ran: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    for row in rows:
        if row["verdict"] in ("pass", "fail", "error"):
            ran[row["check_name"]] += row["n"]
        if row["verdict"] == "pass":
            passed[row["check_name"]] += row["n"]
    return {check: (passed[check] / ran[check] if ran[check] else None) for check in CHECKS + QUALITY_CHECKS}
