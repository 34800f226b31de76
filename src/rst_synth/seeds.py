"""Seeds derived from names, so every random choice of a run (a candidate, the frontier's sample, an
eval or solver attempt) is the same on every resume."""

from __future__ import annotations

import hashlib


def stable_seed(run_seed: int, name: str) -> int:
    """A seed derived from the run's seed and a name: the same on every resume."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{name}".encode()).digest()[:4], "big")
