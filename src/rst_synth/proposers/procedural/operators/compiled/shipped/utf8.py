"""The contract of `utf8.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones."""

from __future__ import annotations

import random


def reference(line: str) -> str:
    try:
        return str(len(bytes.fromhex(line).decode("utf-8")))
    except UnicodeDecodeError:
        return "-1"


def queries(rng: random.Random) -> list[str]:
    out = [
        "",
        "41",
        "c380",
        "c080",
        "e282ac",
        "e080af",
        "eda080",
        "f4908080",
        "f48fbfbf",
        "f0908d88",
        "e282",
        "f09f98",
        "ff",
        "80",
        "c3",
        "41c3",
        "efbbbf41",
        "f7bfbfbf",
    ]
    pieces = ["41", "7a", "c3a9", "e69db1", "f09f9880", "80", "c0af", "eda0bd", "f4908080", "e2", "f0", "c3"]
    for _ in range(150):
        out.append("".join(rng.choice(pieces[:5] if rng.random() < 0.5 else pieces) for _ in range(rng.randint(0, 9))))
    return out
