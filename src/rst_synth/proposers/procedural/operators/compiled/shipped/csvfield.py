"""The contract of `csvfield.c` in Python, as c-planted-defect's tests read it: `reference(line)`, the
driver's answer to a query, and `queries(rng)`, queries that reach every planted defect and random ones.
Queries and answers write LF, CR and backslash as `\n`, `\r` and `\\` (`unescape`, `escape`)."""

from __future__ import annotations

import random
import re


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), text)


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def reference(line: str) -> str:
    field = unescape(line)
    if field.startswith(" ") or field.endswith(" ") or any(c in field for c in ',"\r\n'):
        field = '"' + field.replace('"', '""') + '"'
    return escape(field)


def queries(rng: random.Random) -> list[str]:
    out = [
        "plain",
        "",
        "a,b",
        'say "hi"',
        '"',
        '""',
        " lead",
        "trail ",
        " ",
        "two\\nlines",
        "cr\\rhere",
        "back\\\\slash",
        "Zürich",
        "x" * 40 + ",",
        '"' * 9,
    ]
    pool = ["a", "b", " ", ",", '"', "\\n", "\\r", "\\\\", "é", "東", "z", "0"]
    for _ in range(150):
        out.append("".join(rng.choice(pool) for _ in range(rng.randint(0, 24))))
    return out
