"""What `c-source-function-list` ships: the script that lists a C file's function definitions by the documented
line rule as CSV, and the test that applies the rule again. The constants are the step's parameters:
`shipping.render` sets them (ORDER: "line" or "name")."""

from __future__ import annotations

import csv
import pathlib
import re

SRC = "/app/src/main.c"
PATTERN = r"^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*]([A-Za-z_][A-Za-z0-9_]*)[ \t]*\("
SKIP = ("if", "while", "for", "switch", "return", "sizeof")
ORDER = "line"
OUT = "/app/src/main_functions.csv"


def write_functions() -> None:
    pattern, skip, order = PATTERN, SKIP, ORDER

    def functions(text: str) -> list[tuple[str, int]]:
        found = []
        for number, line in enumerate(text.split("\n"), start=1):
            m = re.match(pattern, line)
            if m and not line.rstrip().endswith(";") and m.group(1) not in skip:
                found.append((m.group(1), number))
        return found

    with open(SRC, encoding="utf-8") as f:
        found = functions(f.read())
    if order == "name":
        found.sort()
    with open(OUT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["name", "line"])
        writer.writerows(found)


def expected(pattern: str = PATTERN, skip: tuple[str, ...] = SKIP) -> list[tuple[str, int]]:
    text = pathlib.Path(SRC).read_text(encoding="utf-8")
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        m = re.match(pattern, line)
        if m and not line.rstrip().endswith(";") and m.group(1) not in skip:
            found.append((m.group(1), number))
    return sorted(found) if ORDER == "name" else found


def test_function_list() -> None:
    with open(OUT, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["name", "line"]
    assert [(r[0], int(r[1])) for r in rows[1:]] == expected()
