"""Operators on a SQLite table: export it to CSV in a stated order, add a per-group summary table."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import affinity, table_fitting
from rst_synth.proposers.procedural.operators.kit.tables import plain_names, sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git


@register
class SqliteTableToCsv(Operator):
    """Export one table of a SQLite database to CSV, in a stated order."""

    name = "sqlite-table-to-csv"
    kinds = (Kind.SQLITE,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            outside_git(artifact, discovery) and "sqlite3" in discovery.python_modules and bool(sqlite_tables(artifact))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        tables = sqlite_tables(artifact)
        table = ctx.rng.choice(sorted(tables))
        columns = tables[table]
        out = ctx.output_path(artifact, f"{slug(table)}_export", "csv")
        query = (
            f'SELECT {", ".join(chr(34) + c + chr(34) for c in columns)} FROM "{table}" ORDER BY "{columns[0]}", rowid'
        )
        args = f"{artifact.path!r}, {query!r}"
        solution = f"""python3 - <<'PY'
import csv, sqlite3
src, query = {args}
con = sqlite3.connect(src)
cursor = con.execute(query)
with open({out!r}, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow([c[0] for c in cursor.description])
    writer.writerows(["" if v is None else v for v in row] for row in cursor)
con.close()
PY"""
        tests = f"""
SRC, QUERY, COLUMNS, OUT = {args}, {columns!r}, {out!r}


def test_{ctx.tag}_table_exported_in_order():
    with open(OUT, newline="") as f:
        got = list(csv.reader(f))
    assert pathlib.Path(SRC).is_file()
    con = sqlite3.connect(SRC)
    want = con.execute(QUERY).fetchall()
    con.close()
    assert got[0] == COLUMNS
    assert len(got) == len(want) + 1
    for cells, row in zip(got[1:], want):
        assert len(cells) == len(row), cells
        for cell, value in zip(cells, row):
            if value is None:
                assert cell == "", (cell, row)
            elif isinstance(value, (int, float)):
                assert abs(float(cell) - value) <= 1e-9 * max(1.0, abs(value)), (cell, row)
            else:
                assert cell == value, (cell, row)
"""
        instruction = (
            f"Then export the table `{table}` of the SQLite database `{artifact.path}` to `{out}`: a comma-separated "
            f"file whose first row is the header `{','.join(columns)}` (all the table's columns, in table order), "
            f"followed by one row per table row, ordered by `{columns[0]}` ascending (SQLite ordering) "
            "and then by rowid. "
            "NULL becomes an empty field; numbers are written in decimal notation and text values unchanged."
        )
        types = (artifact.details.get("types") or {}).get(table, {})
        not_null = (artifact.details.get("not_null") or {}).get(table, [])  # only known for tables we made
        numeric = [c for c in columns if c in not_null and affinity(types.get(c, "")) in ("INTEGER", "REAL")]
        produced = csv_output(out, list(columns), numeric, rows=(artifact.details.get("rows") or {}).get(table))
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


def _summary_choices(artifact: Artifact) -> list[tuple[str, str, str]]:
    """(table, group, value): a column that categorises and repeats, and an additive measure to total."""
    d = artifact.details
    taken = {n.lower() for n in [*(d.get("tables") or {}), *(d.get("views") or [])]}
    return [
        (t, g, v)
        for t in sorted(sqlite_tables(artifact))
        if f"{t}_summary".lower() not in taken
        for g in table_fitting(artifact, t, Use.GROUP)
        for v in table_fitting(artifact, t, Use.SUM)
        if g != v
    ]


@register
class SqliteAddSummaryTable(Operator):
    """A per-group count/total table of a database, written to a new database of its own."""

    name = "sqlite-add-summary-table"
    uses = (Use.GROUP, Use.SUM)
    final = True
    kinds = (Kind.SQLITE,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        names = set(artifact.details.get("tables") or {}) | set(artifact.details.get("views") or [])
        return (
            outside_git(artifact, discovery)
            and "sqlite3" in discovery.python_modules
            and bool(_summary_choices(artifact))
            and all(plain_names([n]) for n in names)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        table, group, value = ctx.rng.choice(_summary_choices(artifact))
        summary = f"{table}_summary"
        out = ctx.output_path(artifact, "summary", "sqlite")
        args = f"{artifact.path!r}, {table!r}, {group!r}, {value!r}, {summary!r}"
        # A database of its own, not a copy of the source plus one table: the copy repeated the
        # parent's data, and a small file leaves the mutation check's middle byte in a page header.
        solution = f"""python3 - <<'PY'
import sqlite3
src, table, group, value, summary = {args}
source = sqlite3.connect(src)
query = f'SELECT "{{group}}", COUNT(*), SUM("{{value}}") FROM "{{table}}" GROUP BY "{{group}}"'
rows = source.execute(query).fetchall()
source.close()
target = sqlite3.connect({out!r})
target.execute(f'CREATE TABLE "{{summary}}" (group_value TEXT, n INTEGER, total REAL)')
target.executemany(f'INSERT INTO "{{summary}}" VALUES (?, ?, ?)', rows)
target.commit()
target.close()
PY"""
        tests = f"""
SRC, TABLE, GROUP, VALUE, SUMMARY, OUT = {args}, {out!r}


def same(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def test_{ctx.tag}_summary_database():
    assert pathlib.Path(OUT).is_file() and pathlib.Path(SRC).is_file()
    new, old = sqlite3.connect(OUT), sqlite3.connect(SRC)
    tables = [r[0] for r in new.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    assert tables == [SUMMARY], tables
    assert [c[1] for c in new.execute(f'PRAGMA table_info("{{SUMMARY}}")')] == ["group_value", "n", "total"]
    got = new.execute(f'SELECT group_value, n, total FROM "{{SUMMARY}}"').fetchall()
    want = {{g: (n, t) for g, n, t in old.execute(  # a code's value is stored as text in a TEXT column
        f'SELECT CAST("{{GROUP}}" AS TEXT), COUNT(*), SUM("{{VALUE}}") FROM "{{TABLE}}" GROUP BY "{{GROUP}}"')}}
    assert len(got) == len(want) and len({{g for g, _, _ in got}}) == len(got), got
    for g, n, total in got:
        assert g in want, g
        assert n == want[g][0] and same(total, want[g][1]), (g, n, total, want[g])
    names = [r[0] for r in old.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert SUMMARY not in names, "the source database must stay unchanged"
    new.close()
    old.close()
"""
        instruction = (
            f"Next, write a new SQLite database `{out}` that holds exactly one table, `{summary}`, with the "
            f"columns `group_value` (TEXT), `n` and `total`: one row per distinct `{group}` value of table `{table}` "
            f"of `{artifact.path}` (NULL included as its own group), giving the value as text, the number of rows "
            f"with it, and the SQL SUM of `{value}` over those rows. Leave `{artifact.path}` unchanged."
        )
        produced = Artifact(
            path=out,
            kind=Kind.SQLITE,
            details={
                "tables": {summary: ["group_value", "n", "total"]},
                "types": {summary: {"group_value": "TEXT", "n": "INTEGER", "total": "REAL"}},
                "rows": {summary: None},
                "views": [],
                "not_null": {summary: ["n"]},
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
