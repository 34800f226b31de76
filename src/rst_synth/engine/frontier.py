"""Which accepted tasks a round extends: a function of the store alone."""

from __future__ import annotations

import math
import random
from collections import defaultdict

from rst_synth.seeds import stable_seed
from rst_synth.store import Store, TaskRow


def frontier(store: Store, round_: int, *, cap: int, run_seed: int) -> list[TaskRow]:
    """Round r-1's accepted tasks, capped by sampling round-robin across root seeds so no lineage
    crowds out the others; the same store and seed give the same frontier.

    Where the solver measured solve rates, parents an agent solved less often come first: within a
    root seed's queue, among the root seeds when the cap leaves some out, and in the order returned
    (which decides the candidates a budget cuts). A task without a rate comes after those with one;
    a run without any rate gets exactly the sample it got before rates existed."""
    # Sampled over (id, root_id) pairs; only the chosen tasks become TaskRows (building all of a
    # 10,000-task round took about 0.25 s).
    keys = store.task_keys(round_ - 1)
    rates = store.solve_rates(round_ - 1)

    def harder_first(task_id: str) -> float:
        return rates.get(task_id, math.inf)

    if len(keys) <= cap:
        everyone = store.tasks(round_ - 1)
        return sorted(everyone, key=lambda row: harder_first(row.id)) if rates else everyone
    rng = random.Random(stable_seed(run_seed, f"frontier-{round_}"))
    by_root: dict[str, list[str]] = defaultdict(list)
    for task_id, root_id in keys:
        by_root[root_id].append(task_id)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_root.items())]
    rng.shuffle(queues)
    if rates:  # stable sorts: equal rates keep the random order; queues are taken from their ends
        queues = [sorted(queue, key=harder_first, reverse=True) for queue in queues]
        queues.sort(key=lambda queue: harder_first(queue[-1]))
    chosen: list[str] = []
    while len(chosen) < cap:
        for queue in queues:
            if queue and len(chosen) < cap:
                chosen.append(queue.pop())
    if rates:
        chosen.sort(key=harder_first)
    rows = store.tasks_by_id(chosen)
    return [rows[task_id] for task_id in chosen]
