"""What `csv-list-members` ships: the script that splits a column of lists and reports, for every value named
in any list, the rows naming it, and the tests that build that table again another way (each checks the
other). The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows

SRC = "/app/onboarding/roster.csv"
DELIM = ","
LIST = "extra_groups"
SEP = ";"
KEY = "username"
FCOL = ""
FVAL = ""
HEAD = "group"
OUT = "/app/derived/extra_groups_members.csv"


def write_members() -> None:
    members: dict[str, dict[int, str]] = {}
    with open(SRC, newline="", encoding="utf-8") as f:
        for n, row in enumerate(csv.DictReader(f, delimiter=DELIM)):
            if FCOL and row[FCOL].strip() != FVAL:
                continue
            for token in {t.strip() for t in row[LIST].split(SEP)} - {""}:
                members.setdefault(token, {})[n] = row[KEY].strip()
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([HEAD, "members", "count"])
        for token, rows in sorted(members.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            w.writerow([token, " ".join(sorted(rows.values())), len(rows)])


def expected() -> list[list[str]]:
    naming = collections.defaultdict(list)
    with open(SRC, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter=DELIM)
        header = next(reader)
        where = {name: i for i, name in enumerate(header)}
        for cells in filter(None, reader):
            if FCOL and cells[where[FCOL]].strip() != FVAL:
                continue
            for token in dict.fromkeys(t.strip() for t in cells[where[LIST]].split(SEP)):
                if token:
                    naming[token].append(cells[where[KEY]].strip())
    order = sorted(naming, key=lambda t: (-len(naming[t]), t))
    return [[HEAD, "members", "count"]] + [[t, " ".join(sorted(naming[t])), str(len(naming[t]))] for t in order]


def test_members_per_listed_value() -> None:
    assert csv_rows(OUT) == expected()


def test_counts_are_member_counts() -> None:
    table = csv_rows(OUT)
    assert table[0] == [HEAD, "members", "count"] and len(table) > 1
    assert all(int(r[2]) == len(r[1].split(" ")) for r in table[1:])
