"""Columns by role: every meaningless number the agents found in round-5 and round-8 tasks is one no
operator computes any more, and the arithmetic that means something still applies."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.columns import (
    MIN_ROWS_FOR_STATS,
    Column,
    Role,
    Unfit,
    Use,
    column_roles,
    is_summary,
    role_of,
    words,
)
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.kit import workflow
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting, table_fitting
from rst_synth.proposers.procedural.operators.sqlite.table_csv_and_summary import _summary_choices
from rst_synth.proposers.procedural.operators.text import records_tool
from rst_synth.proposers.procedural.proposer import domain_artifacts, looks_report

CSV_ARITHMETIC = (
    "csv-group-totals",
    "csv-column-stats",
    "csv-filter-above-mean",
    "csv-rollup-tool",
    "csv-stream-summary",
    "csv-incremental-fold",
    "serve-csv-http",
    "planted-defect-fix",
    "csv-quarantine-malformed",
)


def table(text: str, path: str = "/app/out/t.csv") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def found(*artifacts: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts), tools=["python3"], python_modules=["sqlite3"])


def usable(artifact: Artifact) -> set[str]:
    return {name for name in CSV_ARITHMETIC if OPERATORS[name].can_use(artifact, found(artifact))}


@pytest.mark.parametrize(
    ("name", "values", "role"),
    [
        ("record", ["1", "2", "3", "4"], Role.ROW_NUMBER),
        ("line_no", ["7", "9", "12"], Role.ROW_NUMBER),
        ("rank", ["1", "1", "1", "1"], Role.ROW_NUMBER),
        ("rowid", ["4", "2", "9"], Role.ROW_NUMBER),
        ("n", ["1", "2", "3", "4"], Role.ADDITIVE),  # a count, not a position: its name says so
        ("x", ["1", "2", "3", "4"], Role.ROW_NUMBER),  # 1..n in order, and a name that says nothing
        ("discontinued", ["0", "1", "0", "0"], Role.FLAG),
        ("active", ["yes", "no", "yes"], Role.FLAG),
        ("unit_price", ["4.99", "12.50", "4.99"], Role.INTENSIVE),
        ("unit_cost_cents", ["100", "250", "100"], Role.INTENSIVE),
        ("cost_per_item", ["3", "4", "9"], Role.INTENSIVE),
        ("latency_avg", ["3.5", "4.0", "2.25"], Role.INTENSIVE),
        ("quantity", ["1", "5", "3"], Role.ADDITIVE),
        ("bytes", ["512", "2048", "77"], Role.ADDITIVE),
        ("order_id", ["SO-1", "SO-2", "SO-3"], Role.IDENTIFIER),
        ("id", ["1", "2", "3"], Role.IDENTIFIER),
        ("product_id", ["1", "1", "2", "2"], Role.CODE),  # a foreign key repeats: it classifies, never adds up
        ("status", ["200", "404", "200"], Role.CODE),
        ("zip", ["02134", "10001", "02134"], Role.CODE),
        ("region", ["north", "south", "north"], Role.CATEGORY),
        ("order_date", ["2025-01-02", "2025-03-04", "2025-01-02"], Role.TIME),
        ("running_total", ["40", "65", "80", "12"], Role.CUMULATIVE),
        ("cum_qty", ["1", "3", "6"], Role.CUMULATIVE),
        ("extra_groups", ["reports;vpn", "ops;vpn", "", "vpn", "vpn;reports;ops"], Role.LIST),  # split, not a group
        ("tags", ["a|b", "b", "c|a"], Role.LIST),
        (
            "note",
            ["a much longer free text note", "another long note with words", "third note of free text"],
            Role.TEXT,
        ),
    ],
)
def test_a_role_from_the_name_and_the_values(name: str, values: list[str], role: Role) -> None:
    assert role_of(name, values) is role


def test_words_of_a_name() -> None:
    assert words("unitPrice") == words("unit_price") == ["unit", "price"]
    assert words("HTTPStatus") == ["http", "status"]


def test_what_each_use_takes() -> None:
    region = Column("region", Role.CATEGORY, distinct=3, rows=40)
    assert region.fits(Use.GROUP) and not region.fits(Use.SUM) and not region.fits(Use.KEY)
    assert not Column("key", Role.CATEGORY, distinct=40, rows=40).fits(Use.GROUP)  # one group per row
    assert Column("key", Role.CATEGORY, distinct=40, rows=40).fits(Use.KEY)
    amount = Column("amount", Role.ADDITIVE, distinct=30, rows=40)
    assert amount.fits(Use.SUM) and amount.fits(Use.STATS)
    price = Column("price", Role.INTENSIVE, distinct=5, rows=40)
    assert price.fits(Use.STATS) and not price.fits(Use.SUM)
    twelve = Column("size", Role.ADDITIVE, distinct=1, rows=40)  # every value 12
    assert not any(twelve.fits(use) for use in Use)
    for role in (Role.IDENTIFIER, Role.ROW_NUMBER, Role.CODE, Role.FLAG, Role.TIME):
        column = Column("c", role, distinct=10, rows=40)
        assert not column.fits(Use.SUM) and not column.fits(Use.STATS), role
    assert not any(Column("groups", Role.LIST, distinct=5, rows=40).fits(use) for use in Use)
    # a summary's key of three rows: no group by it, no statistics of its totals
    assert Column("key", Role.CATEGORY, distinct=3, rows=3).unfit(Use.GROUP) is Unfit.ONE_GROUP_PER_ROW
    assert Column("total", Role.ADDITIVE, distinct=3, rows=3).unfit(Use.STATS) is Unfit.FEW_ROWS
    assert Column("total", Role.ADDITIVE, distinct=6, rows=MIN_ROWS_FOR_STATS).fits(Use.STATS)
    # most groups of one row each are no groups; a few are
    assert Column("name", Role.CATEGORY, distinct=4, rows=6, single=3).unfit(Use.GROUP) is Unfit.SINGLE_ROW_GROUPS
    assert Column("region", Role.CATEGORY, distinct=3, rows=6, single=1).fits(Use.GROUP)
    # a signed change is summed (the net change), never averaged
    delta = Column("delta", Role.CHANGE, distinct=6, rows=8)
    assert delta.fits(Use.SUM) and delta.unfit(Use.STATS) is Unfit.ROLE
    assert delta.to_json()["single"] == 0


def test_a_running_total_is_neither_summed_nor_averaged() -> None:
    """An inventory audit's stock running total per warehouse, then its rows above the mean running total
    (round 5 of sqlite-inventory): the mean of running totals is a number nobody in the story reads."""
    totals: dict[int, int] = {}
    rows = []
    for k, (warehouse, quantity) in enumerate([(1, 40), (1, 25), (1, 15), (2, 30), (2, 9)] * 2):
        totals[warehouse] = totals.get(warehouse, 0) + quantity
        rows.append([str(warehouse), str(k), str(quantity), str(totals[warehouse])])
    header = ["warehouse_id", "rowid", "quantity", "running_total"]
    columns = column_roles(header, rows)
    assert columns["running_total"].role is Role.CUMULATIVE
    assert not any(columns["running_total"].fits(use) for use in Use)
    assert columns["quantity"].fits(Use.SUM) and columns["quantity"].fits(Use.STATS)
    text = ",".join(header) + "\n" + "".join(",".join(row) + "\n" for row in rows)
    csv = table(text, "/app/inventory_stock_running_total.csv")
    ctx = StepContext(discovery=found(csv), rng=random.Random(1), tag="r5s1")
    step = OPERATORS["csv-filter-above-mean"].step(csv, ctx)
    assert "`running_total`" not in step.instruction and "`quantity`" in step.instruction, step.instruction


def test_totals_of_a_reject_reports_row_numbers() -> None:
    """`record` per `reason` of a quarantine's reject report: a report, never data."""
    rejects = table("record,reason\n1,bad_number\n4,duplicate\n5,bad_number\n9,missing_key\n12,bad_number\n")
    assert looks_report(rejects)
    assert usable(rejects) == set()
    assert domain_artifacts([rejects], []) == []


def test_sums_of_flags_and_of_unit_prices() -> None:
    products = table(
        "sku,category,unit_price,discontinued,stock\n"
        "A1,tools,4.99,0,12\nA2,tools,12.50,1,3\nB1,toys,4.99,0,40\nB2,toys,0.85,0,7\nC1,tools,19.99,1,1\n"
        "C2,toys,2.25,0,15\n"  # six rows: statistics take six or more
    )
    assert csv_fitting(products, Use.SUM) == ["stock"]
    assert csv_fitting(products, Use.STATS) == ["unit_price", "stock"]
    assert workflow.csv_pairs(products) == [("category", "stock"), ("discontinued", "stock")]


def test_a_summary_is_no_batch_and_no_group() -> None:
    """status_counts.csv: one row per status with its count. Folding it into a ledger as a batch, feeding
    more rows in its format or grouping it by its unique key means nothing; a partner's figures per key do."""
    text = "status,count\n200,17\n301,2\n302,4\n404,3\n500,1\n503,6\n"  # six rows: enough for statistics
    summary = table(text, "/app/report/status_counts.csv")
    assert is_summary(column_roles(["status", "count"], [line.split(",") for line in text.splitlines()[1:]]))
    assert usable(summary) <= {"csv-column-stats", "csv-filter-above-mean"}
    assert OPERATORS["csv-reconcile-sources"].can_use(summary, found(summary))
    assert not OPERATORS["csv-to-sqlite"].can_use(summary, found(summary))


def test_statistics_and_filters_of_a_constant_column() -> None:
    """Every value 12: min = max = mean = median, and nothing lies above the mean (a header and no rows)."""
    constant = table("zone,size\nn,12\ns,12\nn,12\ne,12\n")
    assert usable(constant) == set()
    counts = table("file,lines\na.txt,1\nb.txt,1\nc.txt,1\nd.txt,1\n")  # line counts all 1
    assert usable(counts) == set()


def test_a_rank_is_never_summed() -> None:
    """A window report's output (`rank` 1 on every row) served with a sum per group: no more."""
    report = table("category,rank,rowid,stock\ntools,1,1,12\ntoys,1,3,40\ntools,1,5,9\ntoys,1,7,8\n")
    assert all(value == "stock" for _, value in workflow.csv_pairs(report))


def test_a_top_five_of_five_keys() -> None:
    five = "".join(f"k{i % 5} {i}.25\n" for i in range(30))
    seven = "".join(f"k{i % 7} {i}.25\n" for i in range(30))
    assert records_tool._layout(table(five, "/app/out/five.txt")) is None
    assert records_tool._layout(table(seven, "/app/out/seven.txt")) == (1, 2)


def test_roles_of_a_database_table(tmp_path: Path) -> None:
    """The sqlite-inventory seed's products: a sum of `discontinued` or of `unit_cost_cents` is no report."""
    db = tmp_path / "inventory.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT, category TEXT, unit_cost_cents INTEGER, "
        "reorder_level INTEGER, discontinued INTEGER)"
    )
    rows = [(i, f"S{i}", ("tools", "toys", "food")[i % 3], 100 + 37 * i, 5 + i % 4, i % 5 == 0) for i in range(1, 13)]
    con.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.execute("CREATE TABLE stock (product_id INTEGER, warehouse_id INTEGER, quantity INTEGER)")
    con.executemany("INSERT INTO stock VALUES (?, ?, ?)", [(1 + i % 6, 1 + i % 3, 3 * i + 1) for i in range(18)])
    con.commit()
    con.close()
    kind, details, _ = classify("/app/inventory.db", db.read_bytes())
    art = Artifact(path="/app/inventory.db", kind=kind, details=details)
    assert table_fitting(art, "products", Use.SUM) == []
    assert table_fitting(art, "products", Use.GROUP) == ["category", "discontinued"]  # counted per flag, never summed
    assert table_fitting(art, "stock", Use.SUM) == ["quantity"]
    assert table_fitting(art, "stock", Use.GROUP) == ["product_id", "warehouse_id"]
    assert set(_summary_choices(art)) == {("stock", "product_id", "quantity"), ("stock", "warehouse_id", "quantity")}


def test_every_arithmetic_operator_declares_its_uses_and_keeps_to_them() -> None:
    declared = {name for name, op in OPERATORS.items() if op.uses}
    assert declared >= {*CSV_ARITHMETIC, "csv-reconcile-sources", "sqlite-add-summary-table", "sqlite-window-report"}
    # identifiers, row numbers, flags, codes, a constant measure and a unique label: nothing to compute
    nothing = table(
        "id,record,active,status,size,label\n"
        + "".join(f"{100 + i},{i},{i % 2},{(200, 404)[i % 3 == 0]},12,item-{i}\n" for i in range(1, 13))
    )
    for name in sorted(declared):
        assert not OPERATORS[name].can_use(nothing, found(nothing)), name


def test_summaries_a_step_writes_are_end_results() -> None:
    """Group totals and a reconciliation write one row per key: no later step takes them as a feed or a batch."""
    ledger = table(
        "account,region,amount\n" + "".join(f"a{i},{('north', 'south')[i % 2]},{i * 3 + 1}.25\n" for i in range(10)),
        "/app/out/ledger.csv",
    )
    ctx = StepContext(discovery=found(ledger), rng=random.Random(1), tag="r1s1")
    for name in ("csv-group-totals", "csv-reconcile-sources"):
        step = OPERATORS[name].step(ledger, ctx)
        assert all(a.end_result for a in step.produces if a.kind is Kind.CSV), name
