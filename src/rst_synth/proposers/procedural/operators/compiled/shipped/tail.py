"""The contract of `tail.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones."""

from __future__ import annotations

import random


def reference(line: str) -> str:
    words = line.split("|")
    held = words[1:][-int(words[0]) :]
    return "|".join([str(len(held)), *held])


def queries(rng: random.Random) -> list[str]:
    out = ["1|a", "1|a|b|c", "3|x|y", "3|a|b|c|d|e", "2|", "4|one|two|three|four"]
    for _ in range(120):
        cap = rng.randint(1, 8)
        lines = [
            rng.choice(["", "GET /", "error", "Zürich", "a b", "x" * rng.randint(1, 30)]) + str(i)
            for i in range(rng.randint(0, 20))
        ]
        out.append("|".join([str(cap), *lines]))
    return out
