"""The reference of sqlite-migration-tool, called directly: the tool written from it migrates a small database
through its three versions and passes the shipped tests on the copy it migrated; a wrong copy, and tools that
number the lookup in insertion order, whose triggers re-add every value, or that migrate a newer database,
fail them."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import migration_tool as shipped
from rst_synth.proposers.procedural.operators.sqlite.shipped.database_copy import copy_database
from rst_synth.proposers.procedural.shipping import python_tool, render

CALL = "sys.exit(main(sys.argv))"
CATEGORIES = ["tools", "cables", None, "Zubehör", "lighting", "cables", "tools", "apparel"]
"""Not in code-point order as first seen, and one NULL: a lookup numbered in insertion order differs."""


def make_database(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, category TEXT, cost INTEGER);
        CREATE TABLE stock (product_id INTEGER NOT NULL, quantity INTEGER NOT NULL);
        CREATE VIEW cheap AS SELECT sku FROM products WHERE cost < 500;
        """
    )
    for pid, category in enumerate(CATEGORIES, 1):
        db.execute("INSERT INTO products VALUES (?, ?, ?, ?)", (pid, f"SKU-{pid:03d}", category, pid * 170))
        db.execute("INSERT INTO stock VALUES (?, ?)", (pid, pid * 3))
    db.commit()
    db.close()


def write_tool(path: Path, code: str) -> Path:
    path.write_text(python_tool(code, CALL))
    path.chmod(0o755)
    return path


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference tool (the module's example names), run as the solution runs it on a copy of the database."""
    path = write_tool(tmp_path / "migrate", render(shipped, ["main"]))
    src, out = tmp_path / "shop.db", tmp_path / "shop_v3.db"
    make_database(src)
    copy_database(src, out)
    done = subprocess.run([str(path), str(out)], capture_output=True, check=True)
    assert done.stdout.split() == [b"1", b"2", b"3"]
    for name, value in (("TOOL", str(path)), ("SRC", str(src)), ("OUT", str(out))):
        monkeypatch.setattr(shipped, name, value)
    return path


def run_test(test: Callable[[Path], None], tmp_path: Path, name: str) -> None:
    case = tmp_path / name
    case.mkdir()
    test(case)


def test_the_tool_numbers_the_lookup_in_code_point_order(tool: Path) -> None:
    db = sqlite3.connect(shipped.OUT)
    lookup = db.execute("SELECT id, name FROM category_ref ORDER BY id").fetchall()
    ids = [r[0] for r in db.execute("SELECT category_id FROM products ORDER BY id")]
    db.close()
    assert lookup == [(1, "Zubehör"), (2, "apparel"), (3, "cables"), (4, "lighting"), (5, "tools")]
    assert ids == [5, 3, None, 1, 4, 3, 5, 2]


def test_the_reference_passes_its_tests(tool: Path, tmp_path: Path) -> None:
    shipped.test_migrated_copy()
    for test in (
        shipped.test_tool_migrates_a_fresh_copy_once,
        shipped.test_tool_resumes_from_version_1,
        shipped.test_triggers_keep_the_lookup_current,
        shipped.test_tool_refuses_what_it_cannot_migrate,
    ):
        run_test(test, tmp_path, test.__name__)


def test_a_wrong_copy_fails(tool: Path) -> None:
    db = sqlite3.connect(shipped.OUT)
    db.execute("UPDATE products SET category_id = 3 WHERE id = 1")  # tools' row pointing at cables
    db.commit()
    db.close()
    with pytest.raises(AssertionError):
        shipped.test_migrated_copy()


@pytest.mark.parametrize(
    ("right", "wrong", "test"),
    [
        ("ROW_NUMBER() OVER (ORDER BY v)", "ROW_NUMBER() OVER ()", shipped.test_tool_migrates_a_fresh_copy_once),
        (
            'SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM "{REF}"), NEW."{COLUMN}"\n  WHERE',
            'SELECT COALESCE(MAX(id), 0) + 1, NEW."{COLUMN}" FROM "{REF}"\n  WHERE',
            shipped.test_triggers_keep_the_lookup_current,
        ),
        ("if version > LATEST:", "if version > 99:", shipped.test_tool_refuses_what_it_cannot_migrate),
    ],
    ids=["insertion order", "aggregate trigger", "newer migrated"],
)
def test_a_wrong_tool_fails(tool: Path, tmp_path: Path, right: str, wrong: str, test: Callable[[Path], None]) -> None:
    code = render(shipped, ["main"])
    assert right in code
    write_tool(tool, code.replace(right, wrong))
    if test is shipped.test_triggers_keep_the_lookup_current:  # the triggers run on the migrated copy
        copy_database(shipped.SRC, shipped.OUT)
        subprocess.run([str(tool), shipped.OUT], capture_output=True, check=True)
    with pytest.raises((AssertionError, sqlite3.Error)):  # the aggregate re-adds a value: the lookup refuses it
        run_test(test, tmp_path, "wrong")
