"""The frontier: where the solver measured solve rates, parents an agent solved less often come first;
without rates, exactly the sample the frontier always drew."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from rst_synth.engine import frontier
from rst_synth.seeds import stable_seed
from rst_synth.store import Store, TaskRow


def _store(tmp_path: Path, rates: dict[str, float | None]) -> Store:
    """Round 1 of a run: task `<root>-<i>` per key, with its solve rate."""
    store = Store(tmp_path / "run.db")
    for task_id, rate in rates.items():
        root = task_id.split("-")[0]
        row = TaskRow(id=task_id, name=f"o/{task_id}", round=1, parent_id=root, root_id=root, path=task_id)
        store.accept(f"c-{task_id}", row.model_copy(update={"solve_rate": rate}), b"", b"")
    return store


def _sample_before_rates(store: Store, round_: int, cap: int, run_seed: int) -> list[str]:
    """The frontier's capped sample as it was drawn before solve rates existed."""
    rng = random.Random(stable_seed(run_seed, f"frontier-{round_}"))
    by_root: dict[str, list[str]] = defaultdict(list)
    for task_id, root_id in store.task_keys(round_ - 1):
        by_root[root_id].append(task_id)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_root.items())]
    rng.shuffle(queues)
    chosen: list[str] = []
    while len(chosen) < cap:
        for queue in queues:
            if queue and len(chosen) < cap:
                chosen.append(queue.pop())
    return chosen


def test_without_solve_rates_the_frontier_is_the_one_it_always_was(tmp_path: Path) -> None:
    store = _store(tmp_path, {f"{root}-{i}": None for root in "abc" for i in range(5)})
    for seed in range(20):
        for cap in (1, 2, 4, 7, 14):
            assert [r.id for r in frontier(store, 2, cap=cap, run_seed=seed)] == _sample_before_rates(
                store, 2, cap, seed
            )
    assert [r.id for r in frontier(store, 2, cap=15, run_seed=0)] == [r.id for r in store.tasks(1)]


def test_capped_the_least_solved_parents_of_each_root_come_first(tmp_path: Path) -> None:
    rates: dict[str, float | None] = {
        "a-0": 1.0, "a-1": 0.25, "a-2": 0.5, "a-3": None,
        "b-0": 0.75, "b-1": 0.0, "b-2": 1.0,
        "c-0": 0.5, "c-1": None,
    }  # fmt: skip
    store = _store(tmp_path, rates)
    for seed in range(10):
        chosen = [r.id for r in frontier(store, 2, cap=3, run_seed=seed)]
        assert chosen == ["b-1", "a-1", "c-0"]  # each root's lowest, the lowest first
        six = [r.id for r in frontier(store, 2, cap=6, run_seed=seed)]
        assert six == ["b-1", "a-1", "c-0", "a-2", "b-0", "c-1"]  # round-robin still; no rate comes last
    # Two roots for one place: the root whose best parent was solved least.
    assert [r.id for r in frontier(store, 2, cap=1, run_seed=0)] == ["b-1"]


def test_uncapped_every_parent_comes_least_solved_first(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a-0": 1.0, "a-1": None, "b-0": 0.25, "b-1": 0.5})
    assert [r.id for r in frontier(store, 2, cap=64, run_seed=0)] == ["b-0", "b-1", "a-0", "a-1"]
