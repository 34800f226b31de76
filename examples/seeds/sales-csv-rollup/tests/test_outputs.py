"""Checks of the sales rollup, recomputed from the export itself."""
import csv
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

DATA = Path("/app/data/sales.csv")
REPORT = Path("/app/report")


def sales_rows():
    with DATA.open(newline="") as fh:
        return list(csv.DictReader(fh))


def completed():
    return [r for r in sales_rows() if r["status"] == "completed"]


def expected_cells():
    cells = defaultdict(lambda: [0, 0, Decimal("0")])
    for r in completed():
        cell = cells[(r["region"].strip().lower(), r["order_date"][:7])]
        cell[0] += 1
        cell[1] += int(r["quantity"])
        cell[2] += int(r["quantity"]) * Decimal(r["unit_price"])
    return cells


def revenue_by(key):
    totals = defaultdict(Decimal)
    for r in completed():
        totals[key(r)] += int(r["quantity"]) * Decimal(r["unit_price"])
    return totals


def summary():
    return json.loads((REPORT / "summary.json").read_text())


def test_input_untouched():
    rows = sales_rows()
    assert len(rows) == 600
    assert {r["status"] for r in rows} == {"completed", "cancelled"}


def test_region_month_values():
    with (REPORT / "region_month.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["region", "month", "orders", "units", "revenue"]
    got = {(r[0], r[1]): (int(r[2]), int(r[3]), r[4]) for r in rows[1:]}
    want = {k: (o, u, f"{rev:.2f}") for k, (o, u, rev) in expected_cells().items()}
    assert got == want
    assert len(rows) - 1 == len(want)


def test_region_month_order():
    with (REPORT / "region_month.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    keys = [(r[0], r[1]) for r in rows]
    assert keys == sorted(keys)


def test_summary_counts():
    rows = sales_rows()
    data = summary()
    assert data["completed_orders"] == sum(r["status"] == "completed" for r in rows)
    assert data["cancelled_orders"] == sum(r["status"] == "cancelled" for r in rows)


def test_summary_revenue():
    data = summary()
    regions = revenue_by(lambda r: r["region"].strip().lower())
    assert abs(data["total_revenue"] - float(sum(regions.values()))) < 0.006
    assert set(data["revenue_by_region"]) == set(regions)
    for region, value in regions.items():
        assert abs(data["revenue_by_region"][region] - float(value)) < 0.006


def test_summary_best_month_and_product():
    data = summary()
    months = revenue_by(lambda r: r["order_date"][:7])
    products = revenue_by(lambda r: r["product"])
    assert data["best_month"] == min(months, key=lambda m: (-months[m], m))
    assert data["top_product"] == min(products, key=lambda p: (-products[p], p))
