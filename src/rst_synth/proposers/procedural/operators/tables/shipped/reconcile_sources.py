"""What `csv-reconcile-sources` ships: the script that reconciles our table with a partner's JSON export
under the stated conflict rules (its `main`), and the test that rebuilds the reconciliation with the same
rules. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import io
import json
import pathlib
import re
from typing import Any

SRC = "/app/out/ledger.csv"
PARTNER = "/app/incoming/r1s1/ledger_partner.json"
KEY = "account"
VALUE = "amount"
CUTOFF = "2025-02-28"
OUT = "/app/out/ledger_reconciled.csv"


def norm(key: str) -> str:
    return key.strip().casefold()


def is_number(text: object) -> bool:
    return isinstance(text, str) and re.fullmatch(r"-?\d+(\.\d+)?", text.strip()) is not None


def reconcile(ours_text: str, partner: list[dict[str, Any]], key: str, value: str, cutoff: str) -> list[list[str]]:
    rows = [row for row in csv.reader(io.StringIO(ours_text, newline="")) if row]
    k, v = rows[0].index(key), rows[0].index(value)
    ours = {norm(row[k]): (row[k], row[v]) for row in rows[1:]}
    best: dict[str, dict[str, Any]] = {}
    for record in partner:
        if isinstance(record.get("key"), str) and is_number(record.get("value")):
            n = norm(record["key"])
            if n not in best or record["as_of"] >= best[n]["as_of"]:
                best[n] = record
    out = [[key, value, "source"]]
    for n in sorted(set(ours) | set(best)):
        if n in ours and n in best:
            (name, mine), theirs = ours[n], best[n]["value"].strip()
            if decimal.Decimal(mine) == decimal.Decimal(theirs):
                out.append([name, mine, "both"])
            elif best[n]["as_of"] >= cutoff:
                out.append([name, theirs, "partner"])
            else:
                out.append([name, mine, "ours"])
        elif n in ours:
            out.append([ours[n][0], ours[n][1], "ours"])
        else:
            out.append([best[n]["key"].strip(), best[n]["value"].strip(), "partner"])
    return out


def main() -> None:
    with open(SRC, encoding="utf-8", newline="") as f:
        ours = f.read()
    with open(PARTNER, encoding="utf-8") as f:
        table = reconcile(ours, json.load(f), KEY, VALUE, CUTOFF)
    with open(OUT, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(table)


def test_reconciled_by_the_rules() -> None:
    ours = pathlib.Path(SRC).read_text(encoding="utf-8")
    want = reconcile(ours, json.loads(pathlib.Path(PARTNER).read_text(encoding="utf-8")), KEY, VALUE, CUTOFF)
    with open(OUT, encoding="utf-8", newline="") as f:
        got = [row for row in csv.reader(f) if row]
    assert got == want
