"""Which accepted tasks a round extends: a function of the store alone."""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict

from rst_synth.store import Store, TaskRow


def stable_seed(run_seed: int, name: str) -> int:
    """A seed derived from the run's seed and a name: the same on every resume."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{name}".encode()).digest()[:4], "big")


def frontier(store: Store, round_: int, *, cap: int, run_seed: int) -> list[TaskRow]:
    """Round r-1's accepted tasks, capped by sampling round-robin across root seeds so no lineage
    crowds out the others; the same store and seed give the same frontier."""
    # Sampled over (id, root_id) pairs; only the chosen tasks become TaskRows (building all of a
    # 10,000-task round took about 0.25 s).
    keys = store.task_keys(round_ - 1)
    if len(keys) <= cap:
        return store.tasks(round_ - 1)
    rng = random.Random(stable_seed(run_seed, f"frontier-{round_}"))
    by_root: dict[str, list[str]] = defaultdict(list)
    for task_id, root_id in keys:
        by_root[root_id].append(task_id)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_root.items())]
    rng.shuffle(queues)
    chosen: list[str] = []
    while len(chosen) < cap:
        for queue in queues:
            if queue and len(chosen) < cap:
                chosen.append(queue.pop())
    rows = store.tasks_by_id(chosen)
    return [rows[task_id] for task_id in chosen]
