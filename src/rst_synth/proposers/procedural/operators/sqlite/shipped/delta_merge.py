"""What `sqlite-delta-merge` ships: the merge rules of a delta feed (`merged_rows`), the script that writes
the merged table into a new database, and the tests that merge the feed again. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import datetime
import json
import pathlib
import sqlite3
from typing import Any

SRC = "/app/data/shop.db"
FEED = "/app/incoming/shop_products_changes.jsonl"
TABLE = "products"
KEY = "id"
AS_OF = "2026-03-10T04:00:00Z"
OUT = "/app/data/shop_merged.db"


def instant(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(datetime.timezone.utc)  # noqa: UP017


def merged_rows(columns: list[str], rows: list[Any], events: list[Any], key: str, as_of: str) -> list[list[Any]]:
    # rows: lists in column order; events: dicts of the feed. Returns the rows after the merge.
    k = columns.index(key)
    table = [list(row) for row in rows]
    cutoff = instant(as_of)
    live = [e for e in events if instant(e["ts"]) > cutoff]
    for event in sorted(live, key=lambda e: (instant(e["ts"]), e["seq"])):
        hits = [row for row in table if row[k] == event["id"]]
        if event["op"] == "delete":
            table = [row for row in table if row[k] != event["id"]]
        elif hits:
            for row in hits:
                for name, value in event["data"].items():
                    row[columns.index(name)] = value
        elif set(event["data"]) == set(columns) - {key}:
            table.append([event["id"] if c == key else event["data"][c] for c in columns])
    return table


def merge_feed() -> None:
    source = sqlite3.connect(f"file:{SRC}?mode=ro", uri=True)
    schema = source.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type = 'index', name", (TABLE,)
    ).fetchall()
    columns = [c[1] for c in source.execute(f'PRAGMA table_info("{TABLE}")')]
    rows = source.execute(f'SELECT * FROM "{TABLE}"').fetchall()
    source.close()
    with open(FEED, encoding="utf-8") as f:
        events = [json.loads(line) for line in f if line.strip()]
    db = sqlite3.connect(OUT)
    for (statement,) in schema:
        db.execute(statement)
    marks = ", ".join("?" for _ in columns)
    db.executemany(f'INSERT INTO "{TABLE}" VALUES ({marks})', merged_rows(columns, rows, events, KEY, AS_OF))
    db.commit()
    db.close()


def rows_of(path: str, table: str) -> tuple[list[str], list[Any]]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    columns = [c[1] for c in con.execute(f'PRAGMA table_info("{table}")')]
    rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
    con.close()
    return columns, rows


def ordered(rows: list[Any]) -> list[list[Any]]:
    return sorted((list(r) for r in rows), key=lambda r: [(v is None, type(v).__name__, v) for v in r])


def test_feed_merged_by_the_rules() -> None:
    events = [json.loads(line) for line in pathlib.Path(FEED).read_text(encoding="utf-8").splitlines() if line]
    columns, source = rows_of(SRC, TABLE)
    got_columns, got = rows_of(OUT, TABLE)
    assert got_columns == columns
    want = merged_rows(columns, source, events, KEY, AS_OF)
    assert ordered(got) == ordered(want)
    assert ordered(want) != ordered(source)


def test_only_the_table_with_its_schema() -> None:
    query = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name = ? ORDER BY type, name"
    con = sqlite3.connect(f"file:{SRC}?mode=ro", uri=True)
    schema = con.execute(query, (TABLE,)).fetchall()
    con.close()
    new = sqlite3.connect(f"file:{OUT}?mode=ro", uri=True)
    assert new.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall() == schema
    assert new.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    new.close()
