"""The contract of `percentile.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones."""

from __future__ import annotations

import math
import random


def reference(line: str) -> str:
    words = line.split()
    p, values = float(words[0]), [float(w) for w in words[1:]]
    if not values or not (0 < p <= 100):
        return "error -1"
    return f"ok {sorted(values)[math.ceil(p / 100 * len(values)) - 1]:.17g}"


def queries(rng: random.Random) -> list[str]:
    fixed = [
        "50",
        "0 1 2 3",
        "100 3 1 2",
        "-5 1",
        "100.5 1",
        "nan 4 5",
        "25 4 3 2 1",
        "75 8 6 4 2",
        "100 7",
        "1e-9 5 6",
        "20 5 4 3 2 1",
        "40 9 8 7 6 5",
    ]
    out = list(fixed)
    for _ in range(140):
        n = rng.randint(1, 40)
        p = rng.choice([rng.uniform(0.1, 100), 100, 50, 25, 10, 90, 99, 12.5, 5 * rng.randint(1, 20)])
        values = [
            rng.choice([repr(round(rng.uniform(-500, 500), 3) or 0.0), str(rng.randint(-9, 9)), "1e300"])
            for _ in range(n)
        ]
        out.append(" ".join([repr(float(p)), *values]))
    return out
