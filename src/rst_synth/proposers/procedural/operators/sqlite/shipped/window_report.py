"""What `sqlite-window-report` ships: the script that runs the query file and writes its result as CSV, and
the tests that run the query and read the CSV against the report computed in Python from the table. The
constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import pathlib
import sqlite3
from collections.abc import Sequence
from typing import Any

DB = "/app/data/shop.db"
TABLE = "products"
GROUP = "category"
VALUE = "unit_cost_cents"
VARIANT = "top_per_group"
TOP = 2
SQL = "/app/data/products_top_per_group.sql"
OUT = "/app/data/products_top_per_group.csv"
HEADER = ["category", "rank", "rowid", "unit_cost_cents"]


def write_report() -> None:
    con = sqlite3.connect(DB)
    rows = con.execute(pathlib.Path(SQL).read_text()).fetchall()
    con.close()
    with open(OUT, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(rows)


def source_rows() -> list[tuple[str, int, Any]]:
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    rows = con.execute(
        f'SELECT CAST("{GROUP}" AS TEXT), rowid, "{VALUE}" FROM "{TABLE}" '
        f"WHERE \"{GROUP}\" IS NOT NULL AND typeof(\"{VALUE}\") IN ('integer', 'real')"
    ).fetchall()
    con.close()
    return rows


def expected() -> list[tuple[Any, ...]]:
    groups: dict[str, list[tuple[int, Any]]] = {}
    for g, rowid, v in source_rows():
        groups.setdefault(g, []).append((rowid, v))
    out: list[tuple[Any, ...]] = []
    if VARIANT == "above_average":
        totals = {g: (len(rows), sum(v for _, v in rows)) for g, rows in groups.items()}
        mean = sum(t for _, t in totals.values()) / len(totals) if totals else 0
        for g, (n, total) in sorted(totals.items(), key=lambda kv: (-kv[1][1], kv[0])):
            if total > mean + 1e-9 * max(1.0, abs(mean)):
                out.append((g, n, total))
        return out
    for g in sorted(groups):
        ordered = sorted(groups[g], key=lambda r: (-r[1], r[0]))
        running, rank = 0, 0
        for position, (rowid, v) in enumerate(ordered, 1):
            running += v
            if position == 1 or v != ordered[position - 2][1]:
                rank = position
            if VARIANT == "top_per_group" and rank <= TOP:
                out.append((g, rank, rowid, v))
            elif VARIANT == "running_total":
                out.append((g, rowid, v, running))
    return out


def same(got: Sequence[Sequence[Any]], want: Sequence[Sequence[Any]]) -> None:
    assert len(got) == len(want), (len(got), len(want))
    for a, b in zip(got, want):  # noqa: B905  (the task's python3 may predate strict=)
        assert len(a) == len(b) and a[0] == b[0], (a, b)
        for x, y in zip(a[1:], b[1:]):  # noqa: B905
            assert abs(float(x) - y) <= 1e-6 * max(1.0, abs(y)), (a, b)


def test_query_file_returns_the_report() -> None:
    text = pathlib.Path(SQL).read_text(encoding="utf-8").strip().rstrip(";")
    assert ";" not in text.replace("';'", "")
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    rows = con.execute(text).fetchall()
    con.close()
    same(rows, expected())


def test_report_csv() -> None:
    with open(OUT, encoding="utf-8", newline="") as f:
        got = list(csv.reader(f))
    assert got[0] == HEADER
    same(got[1:], expected())
