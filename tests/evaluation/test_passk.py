"""pass@k: the unbiased estimator against brute-force enumeration, and its per-round average."""

from __future__ import annotations

from itertools import combinations

import pytest

from rst_synth.evaluation.passk import k_values, pass_at_k, rounds_pass
from rst_synth.store import AgentAttemptRow


def brute_force(n: int, c: int, k: int) -> float:
    """The share of all k-subsets of n attempts (c of them successes) that hold a success."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(outcomes[i] for i in subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_estimator_equals_enumeration(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k))


def test_estimator_refuses_k_above_n() -> None:
    with pytest.raises(ValueError, match="needs 0 < k <= n"):
        pass_at_k(2, 1, 3)


def test_k_values() -> None:
    assert k_values(1) == [1]
    assert k_values(4) == [1, 2, 4]
    assert k_values(6) == [1, 2, 4, 6]


def row(task: str, round_: int, attempt: int, reward: float) -> AgentAttemptRow:
    return AgentAttemptRow(eval_id="e", task=task, round=round_, attempt=attempt, reward=reward, ended="done", path="x")


def test_rounds_average_over_tasks() -> None:
    rows = [
        row("a", 1, 0, 1.0),
        row("a", 1, 1, 0.0),
        row("b", 1, 0, 0.0),
        row("b", 1, 1, 0.0),
        row("s", 0, 0, 1.0),
        row("s", 0, 1, 1.0),
    ]
    seeds, first = rounds_pass(rows, 2)
    assert (seeds.round, seeds.tasks, seeds.successes, seeds.pass_at) == (0, 1, 2, {1: 1.0, 2: 1.0})
    assert (first.tasks, first.attempts, first.successes) == (2, 4, 1)
    assert first.pass_at[1] == pytest.approx((0.5 + 0.0) / 2)
    assert first.pass_at[2] == pytest.approx((1.0 + 0.0) / 2)
