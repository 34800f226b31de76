"""Per-round statistics of a run (DESIGN section 4), computed from the store alone."""

from __future__ import annotations

import statistics
from collections import Counter

from pydantic import BaseModel, Field

from rst_synth.store import Store

CHECKS = ("static", "build", "oracle", "nop", "determinism", "parent", "novelty")


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
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    tokens_per_accepted: float | None = None
    cost_per_accepted: float | None = None
    llm_calls: int = 0
    llm_cache_hits: int = 0
    rejections: dict[str, int] = Field(default_factory=dict)
    """`check:reason` -> candidates rejected for it."""


def run_stats(store: Store) -> list[RoundStats]:
    rounds = {row["round"]: row for row in store.rounds()}
    return [_round(store, r, rounds[r]) for r in sorted(rounds)]


def _median(values: list[float | int | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def _round(store: Store, round_: int, row) -> RoundStats:  # type: ignore[no-untyped-def]
    candidates = store.candidates(round_)
    status_counts = Counter(c.status for c in candidates)
    tasks = store.tasks(round_)
    finished = len(candidates) - status_counts["pending"]
    status = row["status"] if not row["stop_reason"] else f"stopped: {row['stop_reason']}"
    stats = RoundStats(
        round=round_, status=status, candidates=len(candidates), accepted=status_counts["accepted"],
        rejected=status_counts["rejected"], errors=status_counts["error"], pending=status_counts["pending"],
        yield_rate=status_counts["accepted"] / finished if finished else None,
        median_solution_lines=_median([t.solution_lines for t in tasks]),
        median_executed_commands=_median([t.executed_commands for t in tasks]),
        median_oracle_sec=_median([t.oracle_sec for t in tasks]),
        tokens_in=sum(c.tokens_in for c in candidates), tokens_out=sum(c.tokens_out for c in candidates),
        cost_usd=round(sum(c.cost_usd for c in candidates), 6),
        rejections=dict(Counter(f"{c.rejection_check}:{c.rejection_reason}" for c in candidates
                                if c.status in ("rejected", "error")).most_common()),
    )
    stats.pass_rates = _pass_rates(store, round_)
    if stats.accepted:
        stats.tokens_per_accepted = (stats.tokens_in + stats.tokens_out) / stats.accepted
        stats.cost_per_accepted = stats.cost_usd / stats.accepted
    calls = store.llm_calls(round_)
    stats.llm_calls, stats.llm_cache_hits = calls["calls"], calls["cache_hits"]
    return stats


def _pass_rates(store: Store, round_: int) -> dict[str, float | None]:
    rows = store.check_verdict_counts(round_)
    ran: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    for row in rows:
        if row["verdict"] in ("pass", "fail", "error"):
            ran[row["check_name"]] += row["n"]
        if row["verdict"] == "pass":
            passed[row["check_name"]] += row["n"]
    return {check: (passed[check] / ran[check] if ran[check] else None) for check in CHECKS}
