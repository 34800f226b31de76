"""The contract of `histogram.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones."""

from __future__ import annotations

import random


def reference(line: str) -> str:
    words = line.split()
    lo, hi, bins = float(words[0]), float(words[1]), int(words[2])
    if bins == 0 or not lo < hi:
        return "error -1"
    counts = [0] * bins
    for v in map(float, words[3:]):
        if lo <= v <= hi:
            counts[min(int((v - lo) / (hi - lo) * bins), bins - 1)] += 1
    return f"{sum(counts)}|" + " ".join(map(str, counts))


def queries(rng: random.Random) -> list[str]:
    out = [
        "0 10 5 10 0 5 9.99",
        "0 10 0 1 2",
        "5 5 3 5",
        "0 1 4 nan 0.5 inf -inf 1",
        "-1 1 2 -1 1 0",
        "0 100 10 100 100 50",
        "1 0 3 0.5",
    ]
    for _ in range(120):
        lo = rng.choice([0, -50, rng.uniform(-100, 100)])
        hi = lo + rng.choice([1, 10, 100, rng.uniform(0.5, 300)])
        bins = rng.randint(1, 12)
        values = [
            rng.choice([repr(rng.uniform(lo - 5, hi + 5)), repr(float(hi)), repr(float(lo)), "nan"])
            for _ in range(rng.randint(0, 30))
        ]
        out.append(" ".join([repr(float(lo)), repr(float(hi)), str(bins), *values]))
    return out
