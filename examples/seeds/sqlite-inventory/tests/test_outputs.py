"""Checks of the low_stock view and the category report, recomputed from the base tables."""
import csv
import shutil
import sqlite3
from collections import defaultdict
from pathlib import Path

DB = Path("/app/inventory.db")
REPORT = Path("/app/reports/category_value.csv")


def connect(path=DB):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True) if path == DB else sqlite3.connect(path)


def base_tables(con):
    products = {r[0]: r for r in con.execute(
        "SELECT id, sku, category, unit_cost_cents, reorder_level, discontinued FROM products")}
    warehouses = dict(con.execute("SELECT id, code FROM warehouses"))
    stock = list(con.execute("SELECT product_id, warehouse_id, quantity FROM stock"))
    return products, warehouses, stock


def expected_low_stock(con):
    products, warehouses, stock = base_tables(con)
    rows = []
    for pid, wid, qty in stock:
        _, sku, _, _, level, discontinued = products[pid]
        if not discontinued and qty < level:
            rows.append((sku, warehouses[wid], qty, level, level - qty))
    return sorted(rows)


def test_base_tables_unchanged():
    con = connect()
    products, warehouses, stock = base_tables(con)
    assert (len(products), len(warehouses), len(stock)) == (60, 3, 137)


def test_low_stock_is_a_view_with_columns():
    con = connect()
    kind = con.execute("SELECT type FROM sqlite_master WHERE name = 'low_stock'").fetchone()
    assert kind == ("view",)
    cursor = con.execute("SELECT * FROM low_stock")
    assert [d[0] for d in cursor.description] == ["sku", "warehouse", "quantity", "reorder_level", "shortfall"]


def test_low_stock_rows():
    con = connect()
    got = sorted(tuple(r) for r in con.execute("SELECT * FROM low_stock"))
    want = expected_low_stock(con)
    assert want and got == want


def test_low_stock_follows_stock_changes(tmp_path):
    copy = tmp_path / "inventory.db"
    shutil.copy(DB, copy)
    con = connect(copy)
    products, _, stock = base_tables(con)
    pid, wid, _ = next(s for s in stock if not products[s[0]][5] and s[2] >= products[s[0]][4])
    con.execute("UPDATE stock SET quantity = 0 WHERE product_id = ? AND warehouse_id = ?", (pid, wid))
    con.execute("UPDATE stock SET quantity = 100000 WHERE quantity < 5")
    con.commit()
    got = sorted(tuple(r) for r in con.execute("SELECT * FROM low_stock"))
    assert got == expected_low_stock(con)


def expected_report():
    products, _, stock = base_tables(connect())
    count, units, cents = defaultdict(int), defaultdict(int), defaultdict(int)
    for _, _, category, _, _, _ in products.values():
        count[category] += 1
    for pid, _, qty in stock:
        category, cost = products[pid][2], products[pid][3]
        units[category] += qty
        cents[category] += qty * cost
    order = sorted(count, key=lambda c: (-cents[c], c))
    return [[c, str(count[c]), str(units[c]), f"{cents[c] // 100}.{cents[c] % 100:02d}"] for c in order]


def test_category_report_header_and_values():
    with REPORT.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["category", "products", "units", "value"]
    assert sorted(rows[1:]) == sorted(expected_report())


def test_category_report_order():
    with REPORT.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[1:] == expected_report()
