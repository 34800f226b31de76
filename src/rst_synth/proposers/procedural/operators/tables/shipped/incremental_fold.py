"""What `csv-incremental-fold` ships: the tool that folds CSV batches into a JSON ledger, each batch once and
a malformed one not at all (its `main`, written to an executable file), and the tests that rebuild the ledger,
rerun the tool and fold fresh batches (CRLF, another column order, whitespace, an empty file, a bad value).
The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import io
import json
import os
import pathlib
import re
import shutil
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

TOOL = "/app/bin/account_amount_fold"
LEDGER = "/app/out/ledger_ledger.json"
FILES = ["/app/out/ledger.csv", "/app/incoming/r1s1/batches/batch-001.csv"]
GROUP = "account"
VALUE = "amount"
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")
CENTS = re.compile(r"-?\d+(\.\d{1,2})?")


def load(state: str) -> Any:
    if not os.path.exists(state):
        return {"applied": {}, "totals": {}}
    with open(state, encoding="utf-8") as f:
        return json.load(f)


def save(state: str, book: Any) -> None:
    temporary = state + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(book, f, indent=2, sort_keys=True, ensure_ascii=False)
    os.replace(temporary, state)


def fold(state: str, paths: list[str], group: str, value: str) -> list[str]:
    book, rejected = load(state), []
    for path in paths:
        name = os.path.basename(path)
        if name in book["applied"]:
            continue
        with open(path, encoding="utf-8", newline="") as f:
            rows = [row for row in csv.reader(f) if row]
        header, body = (rows[0], rows[1:]) if rows else ([group, value], [])
        if (
            group not in header
            or value not in header
            or not all(
                len(row) == len(header)
                and row[header.index(group)].strip()
                and CENTS.fullmatch(row[header.index(value)].strip())
                for row in body
            )
        ):
            rejected.append(name)
            continue
        g, v = header.index(group), header.index(value)
        for row in body:
            entry = book["totals"].setdefault(row[g].strip(), {"rows": 0, "total_cents": 0})
            entry["rows"] += 1
            entry["total_cents"] += int(decimal.Decimal(row[v].strip()) * 100)
        book["applied"][name] = len(body)
        save(state, book)
    if not os.path.exists(state):
        save(state, book)
    return rejected


def main() -> int:
    rejected = fold(sys.argv[1], sys.argv[2:], GROUP, VALUE)
    for name in rejected:
        print("rejected " + name, file=sys.stderr)
    return 1 if rejected else 0


def good_batch(path: str | pathlib.Path) -> list[tuple[str, str]] | None:
    rows = [row for row in csv.reader(io.StringIO(pathlib.Path(path).read_text(encoding="utf-8"), newline="")) if row]
    if not rows:
        return []
    header = rows[0]
    if GROUP not in header or VALUE not in header:
        return None
    g, v = header.index(GROUP), header.index(VALUE)
    body = [(row[g].strip(), row[v].strip()) for row in rows[1:] if len(row) == len(header)]
    if len(body) != len(rows) - 1 or not all(k and re.fullmatch(r"-?\d+(\.\d{1,2})?", x) for k, x in body):
        return None
    return body


def expected_ledger(paths: list[str] | list[pathlib.Path]) -> dict[str, Any]:
    totals, applied = {}, {}  # type: ignore[var-annotated]
    for path in paths:
        body = good_batch(path)
        name = os.path.basename(path)
        if body is None or name in applied:
            continue
        applied[name] = len(body)
        for key, amount in body:
            entry = totals.setdefault(key, {"rows": 0, "total_cents": 0})
            entry["rows"] += 1
            entry["total_cents"] += int(decimal.Decimal(amount) * 100)
    return {"applied": applied, "totals": totals}


def ledger(state: str | pathlib.Path) -> Any:
    data = json.loads(pathlib.Path(state).read_text(encoding="utf-8"))
    assert set(data) == {"applied", "totals"}
    for entry in data["totals"].values():
        assert set(entry) == {"rows", "total_cents"} and all(type(n) is int for n in entry.values())
    return data


def batch(path: pathlib.Path, rows: list[list[str]], end: str = "\n", header: list[str] | None = None) -> pathlib.Path:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=end).writerows([header or [VALUE, GROUP]] + rows)
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    return path


def test_ledger_holds_each_good_batch_once() -> None:
    want = expected_ledger(FILES)
    assert len(want["applied"]) < len(FILES), "the malformed batch must not be applied"
    assert ledger(LEDGER) == want


def test_rerun_counts_nothing_twice(tmp_path: pathlib.Path) -> None:
    copy = tmp_path / "ledger.json"
    shutil.copyfile(LEDGER, copy)
    done = run_tool(TOOL, copy, *FILES)
    assert done.returncode == 1 and b"rejected batch-002.csv" in done.stderr
    assert ledger(copy) == ledger(LEDGER)


def test_tool_folds_fresh_batches_incrementally(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "fresh.json"
    keys = EDGE_VALUES
    one = batch(tmp_path / "one.csv", [[f"{i * 1.25:.2f}", keys[i % len(keys)]] for i in range(12)], "\r\n")
    two = batch(
        tmp_path / "two.csv", [["note", keys[0], "-3.5"], ["", " " + keys[1] + " ", "7"]], header=["note", GROUP, VALUE]
    )
    bad = batch(tmp_path / "bad.csv", [["2.00", keys[2]], ["oops", keys[3]]])
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert run_tool(TOOL, db, one).returncode == 0
    assert ledger(db) == expected_ledger([one])
    done = run_tool(TOOL, db, one, bad, two, empty)
    assert done.returncode == 1 and b"rejected bad.csv" in done.stderr
    assert ledger(db) == expected_ledger([one, two, empty])
    assert run_tool(TOOL, db, one, two, empty).returncode == 0
    assert ledger(db) == expected_ledger([one, two, empty])
