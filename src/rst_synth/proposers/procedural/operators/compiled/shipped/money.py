"""The contract of `money.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones."""

from __future__ import annotations

import random
import re


def reference(line: str) -> str:
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]{2})?", line):
        return "error -1"
    sign = -1 if line.startswith("-") else 1
    cents = sign * int(line.lstrip("-").replace(".", "") + ("" if "." in line else "00"))
    return f"ok {cents}" if -(2**63) <= cents <= 2**63 - 1 else "error -2"


def queries(rng: random.Random) -> list[str]:
    out = [
        "0",
        "-0.00",
        "12.34",
        "-",
        "-.50",
        ".50",
        "1.",
        "1.2",
        "1.234",
        "+5",
        " 5",
        "5 ",
        "12a",
        "92233720368547758.07",
        "92233720368547758.08",
        "-92233720368547758.08",
        "-92233720368547758.09",
        "184467440737095516.16",
        "999999999999999999999",
        "-999999999999999999.99",
        "0000000000000000000012.00",
        "1844674407370955161",
        "18446744073709551616",
        "-",
        "--1",
        "1.5e3",
    ]
    for _ in range(120):
        whole = str(rng.randint(0, 10 ** rng.randint(1, 19)))
        text = rng.choice(["", "-"]) + whole + rng.choice(["", f".{rng.randint(0, 99):02d}", ".5", ".123"])
        out.append(text)
    return out
