"""The reference of sqlite-delta-merge, called directly: its merged table passes its tests; a stale event
applied, events applied in file order instead of by instant, a partial upsert of a new id inserted, and a
copied extra table fail them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import delta_merge as shipped

EVENTS = [
    {"seq": 1, "ts": "2026-03-10T05:00:00+02:00", "op": "upsert", "id": 1, "data": {"name": "stale"}},  # 03:00Z
    {"seq": 2, "ts": "2026-03-10T06:00:00Z", "op": "upsert", "id": 2, "data": {"name": "later"}},
    {"seq": 3, "ts": "2026-03-10T00:30:00-05:00", "op": "upsert", "id": 2, "data": {"name": "earlier"}},  # 05:30Z
    {"seq": 4, "ts": "2026-03-10T07:00:00Z", "op": "delete", "id": 3},
    {"seq": 5, "ts": "2026-03-10T07:00:00Z", "op": "upsert", "id": 4, "data": {"name": "new", "qty": 5}},
    {"seq": 6, "ts": "2026-03-10T07:30:00Z", "op": "upsert", "id": 5, "data": {"qty": 1}},
]


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = sqlite3.connect(tmp_path / "shop.db")
    db.executescript("""
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER);
        CREATE INDEX items_name ON items (name);
        CREATE TABLE other (x);
        INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);
    """)
    db.close()
    (tmp_path / "feed.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    for name, value in {
        "SRC": str(tmp_path / "shop.db"),
        "FEED": str(tmp_path / "feed.jsonl"),
        "TABLE": "items",
        "KEY": "id",
        "AS_OF": "2026-03-10T04:00:00Z",
        "OUT": str(tmp_path / "merged.db"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def rows(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    found = db.execute("SELECT * FROM items ORDER BY id").fetchall()
    db.close()
    return found


def test_the_reference_passes_its_tests(paths: Path) -> None:
    shipped.merge_feed()
    assert rows(paths / "merged.db") == [(1, "a", 1), (2, "later", 2), (4, "new", 5)]
    shipped.test_feed_merged_by_the_rules()
    shipped.test_only_the_table_with_its_schema()


@pytest.mark.parametrize(
    "script",
    [
        "UPDATE items SET name = 'stale' WHERE id = 1",
        "UPDATE items SET name = 'earlier' WHERE id = 2",
        "INSERT INTO items VALUES (5, NULL, 1)",
    ],
)
def test_a_wrong_merge_fails(paths: Path, script: str) -> None:
    shipped.merge_feed()
    db = sqlite3.connect(paths / "merged.db")
    db.execute(script)
    db.commit()
    db.close()
    with pytest.raises(AssertionError):
        shipped.test_feed_merged_by_the_rules()


def test_an_extra_table_fails(paths: Path) -> None:
    shipped.merge_feed()
    db = sqlite3.connect(paths / "merged.db")
    db.execute("CREATE TABLE other (x)")
    db.close()
    with pytest.raises(AssertionError):
        shipped.test_only_the_table_with_its_schema()
