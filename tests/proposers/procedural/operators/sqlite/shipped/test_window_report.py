"""The reference of sqlite-window-report, called directly with each variant's query: its query file and CSV
pass its tests; ROW_NUMBER for RANK (a tie), a running total over the whole table, the mean of rows for
the mean of group totals, a wrong header or a query file holding two statements fail them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import window_report as shipped
from rst_synth.proposers.procedural.operators.sqlite.window_report import QUERIES

HEADERS = {
    "top_per_group": ["category", "rank", "rowid", "price"],
    "running_total": ["category", "rowid", "price", "running_total"],
    "above_average": ["category", "rows", "total"],
}


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = sqlite3.connect(tmp_path / "shop.db")
    db.execute("CREATE TABLE items (name TEXT, category TEXT, price REAL)")
    db.executemany(
        "INSERT INTO items VALUES (?, ?, ?)",
        [("a", "hw", 5), ("b", "hw", 7), ("c", "hw", 7), ("d", "tools", 2), ("e", "tools", 4.5), ("f", None, 9),
         ("g", "chem", "n/a"), ("h", "chem", 6), ("i", "misc", 1), ("j", "misc", 5)],
    )  # fmt: skip
    db.commit()
    db.close()
    for name, value in {
        "DB": str(tmp_path / "shop.db"),
        "TABLE": "items",
        "GROUP": "category",
        "VALUE": "price",
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def solve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, query: str | None = None) -> None:
    for name, value in {
        "VARIANT": variant,
        "TOP": 1,
        "SQL": str(tmp_path / "report.sql"),
        "OUT": str(tmp_path / "report.csv"),
        "HEADER": HEADERS[variant],
    }.items():
        monkeypatch.setattr(shipped, name, value)
    default = QUERIES[variant].format(g="category", v="price", t="items", n=1)
    (tmp_path / "report.sql").write_text((query or default) + ";\n")
    shipped.write_report()


@pytest.mark.parametrize("variant", sorted(QUERIES))
def test_the_reference_passes_its_tests(setup: Path, monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    solve(setup, monkeypatch, variant)
    shipped.test_query_file_returns_the_report()
    shipped.test_report_csv()


def test_the_expected_reports(setup: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    solve(setup, monkeypatch, "top_per_group")
    assert shipped.expected() == [
        ("chem", 1, 8, 6),
        ("hw", 1, 2, 7),
        ("hw", 1, 3, 7),
        ("misc", 1, 10, 5),
        ("tools", 1, 5, 4.5),
    ]
    solve(setup, monkeypatch, "above_average")
    assert shipped.expected() == [("hw", 3, 19)]  # the mean of 6, 19, 6, 6.5 is 9.375


@pytest.mark.parametrize(
    ("variant", "query"),
    [
        (
            "top_per_group",
            QUERIES["top_per_group"].replace("RANK()", "ROW_NUMBER()").format(g="category", v="price", t="items", n=1),
        ),
        (
            "running_total",
            QUERIES["running_total"]
            .replace('PARTITION BY CAST("{g}" AS TEXT) ', "")
            .format(g="category", v="price", t="items", n=1),
        ),
        (
            "above_average",
            QUERIES["above_average"]  # the mean of the rows, not of the group totals
            .replace("SELECT AVG(total) FROM groups", 'SELECT AVG("{v}") FROM "{t}"')
            .format(g="category", v="price", t="items", n=1),
        ),
    ],
)
def test_a_wrong_query_fails(setup: Path, monkeypatch: pytest.MonkeyPatch, variant: str, query: str) -> None:
    solve(setup, monkeypatch, variant, query)
    for test in (shipped.test_query_file_returns_the_report, shipped.test_report_csv):
        with pytest.raises(AssertionError):
            test()


def test_a_wrong_header_or_two_statements_fail(setup: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    solve(setup, monkeypatch, "running_total")
    monkeypatch.setattr(shipped, "HEADER", ["category", "rowid", "price", "total"])
    with pytest.raises(AssertionError):
        shipped.test_report_csv()
    sql = setup / "report.sql"
    sql.write_text("SELECT 1;\n" + sql.read_text())
    with pytest.raises(AssertionError):
        shipped.test_query_file_returns_the_report()
