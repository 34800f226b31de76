"""What `csv-crosstab` ships: the script that counts the rows of a table for every pair of values of two
categorising columns, with totals, and the tests that cross-tabulate the source table again. The constants
are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows

SRC = "/app/onboarding/roster.csv"
DELIM = ","
ROWS_BY = "team"
COLS_BY = "status"
OUT = "/app/derived/team_by_status.csv"


def crosstab(path: str, delim: str, rows_by: str, cols_by: str) -> list[list[str]]:
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            counts[row[rows_by], row[cols_by]] += 1
    down, across = sorted({r for r, _ in counts}), sorted({c for _, c in counts})
    table = [[rows_by, *across, "total"]]
    for r in down:
        cells = [counts[r, c] for c in across]
        table.append([r, *map(str, cells), str(sum(cells))])
    table.append(["total", *(str(sum(counts[r, c] for r in down)) for c in across), str(sum(counts.values()))])
    return table


def write_crosstab() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(crosstab(SRC, DELIM, ROWS_BY, COLS_BY))


def test_crosstab_cells_and_order() -> None:
    assert csv_rows(OUT) == crosstab(SRC, DELIM, ROWS_BY, COLS_BY)


def test_totals_add_up() -> None:
    table = csv_rows(OUT)
    body = table[1:-1]
    assert all(int(r[-1]) == sum(int(x) for x in r[1:-1]) for r in body)
    assert [int(x) for x in table[-1][1:]] == [sum(int(r[i]) for r in body) for i in range(1, len(table[0]))]
