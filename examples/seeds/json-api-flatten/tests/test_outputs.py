"""Checks of the flattened CSV and the summary, computed from the API pages."""
import collections
import csv
import json
from decimal import Decimal
from pathlib import Path

API = Path("/app/api")
OUT = Path("/app/out")


def orders():
    by_id = {}
    for page in sorted(API.glob("orders-page-*.json")):
        for order in json.loads(page.read_text())["data"]:
            by_id.setdefault(order["id"], order)
    return [by_id[key] for key in sorted(by_id)]


def country(order):
    return order["customer"].get("address", {}).get("country") or "unknown"


def line_total(item):
    return item["qty"] * Decimal(item["unit_price"])


def csv_rows():
    with (OUT / "line_items.csv").open(newline="") as fh:
        return list(csv.reader(fh))


def summary():
    return json.loads((OUT / "summary.json").read_text())


def test_pages_untouched():
    pages = sorted(API.glob("orders-page-*.json"))
    assert len(pages) == 4
    assert sum(len(json.loads(p.read_text())["data"]) for p in pages) == 15 * 3 + 13


def test_line_items_csv():
    rows = csv_rows()
    assert rows[0] == ["order_id", "customer_id", "country", "status", "sku", "qty", "unit_price", "line_total"]
    expected = []
    for order in orders():
        for item in order["items"]:
            expected.append([order["id"], order["customer"]["id"], country(order), order["status"], item["sku"],
                             str(item["qty"]), item["unit_price"], f"{line_total(item):.2f}"])
    assert rows[1:] == expected


def test_each_order_counted_once():
    per_order = collections.Counter(row[0] for row in csv_rows()[1:])
    for order in orders():
        assert per_order.get(order["id"], 0) == len(order["items"]), order["id"]


def test_summary_keys_and_counts():
    data, all_orders = summary(), orders()
    assert set(data) == {"orders", "orders_by_status", "paid_revenue_by_country", "top_skus"}
    assert data["orders"] == len(all_orders)
    assert data["orders_by_status"] == dict(collections.Counter(o["status"] for o in all_orders))


def test_paid_revenue_by_country():
    revenue = collections.defaultdict(Decimal)
    for order in orders():
        if order["status"] == "paid":
            revenue[country(order)] += sum((line_total(i) for i in order["items"]), Decimal(0))
    got = summary()["paid_revenue_by_country"]
    assert set(got) == set(revenue)
    for key, value in revenue.items():
        assert isinstance(got[key], (int, float)) and not isinstance(got[key], bool)
        assert abs(Decimal(str(got[key])) - value) < Decimal("0.006"), key


def test_top_skus():
    units = collections.Counter()
    for order in orders():
        if order["status"] == "paid":
            for item in order["items"]:
                units[item["sku"]] += item["qty"]
    expected = sorted(units.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert summary()["top_skus"] == [{"sku": sku, "units": n} for sku, n in expected]
