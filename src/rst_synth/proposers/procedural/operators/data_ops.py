"""Operators on tabular data: CSV statistics and filters, CSV to SQLite (the SQLite table operators are
in sqlite_table_ops.py)."""

from __future__ import annotations

import csv
import io
import re

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.csv_ops import delimiter_name, slug
from rst_synth.proposers.procedural.operators.roles import affinity, csv_columns, csv_fitting, is_data

_NON_FINITE = re.compile(r"(?i)(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])")
_INT = re.compile(r"[-+]?\d{1,18}")


def outside_git(artifact: Artifact, discovery: Discovery) -> bool:
    """False inside a discovered git work tree: a new file there would dirty `git status`."""
    return not any(
        a.kind is Kind.GIT and artifact.path.startswith(a.path.rstrip("/") + "/") for a in discovery.artifacts
    )


def _plain_names(names: list[str]) -> bool:
    """Column names usable as quoted SQL identifiers and as distinct dict keys."""
    return (
        bool(names)
        and all(n.strip() and '"' not in n and "\n" not in n for n in names)
        and len({n.lower() for n in names}) == len(names)
    )


def _csv_ok(artifact: Artifact) -> bool:
    d = artifact.details
    return d.get("delimiter") in (",", "\t") and _plain_names(d.get("header") or [])


def _full_body(artifact: Artifact) -> list[list[str]] | None:
    """The CSV's data rows when the sample holds the whole file, else None."""
    d, sample = artifact.details, artifact.sample
    if not sample or len(sample) >= SAMPLE_CHARS:
        return None
    rows = [r for r in csv.reader(io.StringIO(sample), delimiter=d.get("delimiter", ","))][1:]
    body = [r for r in rows if r]
    return body if len(body) == d.get("rows") else None


def _affinity(declared: str) -> str:
    return affinity(declared)


def _tables(artifact: Artifact) -> dict[str, list[str]]:
    """Tables (non-empty or of unknown size) whose table and column names are plain."""
    d = artifact.details
    return {
        t: cols
        for t, cols in (d.get("tables") or {}).items()
        if '"' not in t and _plain_names(cols) and (d.get("rows") or {}).get(t) != 0
    }


@register
class CsvColumnStats(Operator):
    """Min, max, mean and median of every numeric column, as a JSON object."""

    name = "csv-column-stats"
    uses = (Use.STATS,)
    final = True
    kinds = (Kind.CSV,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return (
            outside_git(artifact, discovery)
            and _csv_ok(artifact)
            and bool(csv_fitting(artifact, Use.STATS))
            and isinstance(d.get("rows"), int)
            and d["rows"] >= 2
            and not _NON_FINITE.search(artifact.sample)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        columns = csv_fitting(artifact, Use.STATS)  # measures that vary: no ids, codes, flags, row numbers
        out = ctx.output_path(artifact, "stats", "json")
        args = f"{artifact.path!r}, {d['delimiter']!r}, {columns!r}"
        solution = f"""python3 - <<'PY'
import csv, json, statistics
src, delim, columns = {args}
with open(src, newline="") as f:
    rows = list(csv.DictReader(f, delimiter=delim))
stats = {{}}
for col in columns:
    values = [float(r[col]) for r in rows]
    stats[col] = {{"min": min(values), "max": max(values),
                  "mean": round(statistics.fmean(values), 3), "median": statistics.median(values)}}
with open({out!r}, "w") as f:
    json.dump(stats, f, indent=2)
PY"""
        tests = f"""
SRC, DELIM, COLUMNS, OUT = {args}, {out!r}


def column_values(name):
    with open(SRC, newline="") as f:
        reader = csv.reader(f, delimiter=DELIM)
        index = next(reader).index(name)
        return [float(row[index]) for row in reader if row]


def close(got, want):
    return abs(got - want) <= 1e-9 * max(1.0, abs(want))


def test_{ctx.tag}_column_stats():
    data = json.loads(pathlib.Path(OUT).read_text())
    assert isinstance(data, dict) and sorted(data) == sorted(COLUMNS)
    for name in COLUMNS:
        values, got = column_values(name), data[name]
        assert isinstance(got, dict) and sorted(got) == ["max", "mean", "median", "min"], got
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in got.values()), got
        assert close(got["min"], min(values)) and close(got["max"], max(values)), (name, got)
        assert close(got["median"], statistics.median(values)), (name, got)
        mean = statistics.fmean(values)
        assert abs(got["mean"] - mean) <= 0.0005 + 1e-9 * max(1.0, abs(mean)), (name, got, mean)
        assert abs(got["mean"] * 1000 - round(got["mean"] * 1000)) < 1e-6 * max(1.0, abs(mean)), got
"""
        names = ", ".join(f"`{c}`" for c in columns)
        instruction = (
            f"Next, compute statistics of the measure columns ({names}) of `{artifact.path}` "
            f"({delimiter_name(d['delimiter'])}-separated, with a header row) and write them to `{out}`: a JSON "
            "object with one key per column name, each mapping to an object with exactly the keys `min`, `max`, "
            "`mean` and `median` whose values are JSON numbers. `mean` is the arithmetic mean rounded to 3 "
            "decimals; `median` is the middle value, or the average of the two middle values when the row count "
            "is even."
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={"type": "object", "keys": sorted(columns), "numeric_keys": [], "string_keys": []},
        )
        return Step(
            operator=self.name,
            consumes=artifact.path,
            solution=solution,
            tests=tests,
            imports=["csv", "json", "statistics"],
            instruction=instruction,
            produces=[produced],
        )


@register
class CsvFilterAboveMean(Operator):
    """Keep the rows whose numeric column is strictly above that column's mean."""

    name = "csv-filter-above-mean"
    uses = (Use.STATS,)
    final = True
    kinds = (Kind.CSV,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return (
            outside_git(artifact, discovery)
            and _csv_ok(artifact)
            and bool(csv_fitting(artifact, Use.STATS))
            and isinstance(d.get("rows"), int)
            and d["rows"] >= 2
            and not _NON_FINITE.search(artifact.sample)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        column = ctx.rng.choice(sorted(csv_fitting(artifact, Use.STATS)))  # a measure that varies: rows above
        out = ctx.output_path(artifact, f"above_mean_{slug(column)}", "csv")
        args = f"{artifact.path!r}, {d['delimiter']!r}, {column!r}"
        solution = f"""python3 - <<'PY'
import csv
src, delim, column = {args}
with open(src, newline="") as f:
    rows = [r for r in csv.reader(f, delimiter=delim) if r]
header, body = rows[0], rows[1:]
i = header.index(column)
mean = sum(float(r[i]) for r in body) / len(body)
with open({out!r}, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(header)
    writer.writerows(r for r in body if float(r[i]) > mean)
PY"""
        tests = f"""
SRC, DELIM, COLUMN, OUT = {args}, {out!r}


def test_{ctx.tag}_rows_above_mean_in_order():
    with open(OUT, newline="") as f:
        got = [row for row in csv.reader(f) if row]
    with open(SRC, newline="") as f:
        rows = [row for row in csv.reader(f, delimiter=DELIM) if row]
    header, body = rows[0], rows[1:]
    assert got and got[0] == header
    index = header.index(COLUMN)
    mean = statistics.fmean(float(row[index]) for row in body)
    slack = 1e-9 * max(1.0, abs(mean))
    at = 1  # walk the source in order: rows clearly above must come next, rows at the mean may
    for row in body:
        value = float(row[index])
        if value > mean + slack:
            assert at < len(got) and got[at] == row, (row, got[at:at + 1])
            at += 1
        elif value >= mean - slack and at < len(got) and got[at] == row:
            at += 1
    assert at == len(got), got[at:]
"""
        instruction = (
            f"Then write to `{out}` the data rows of `{artifact.path}` ({delimiter_name(d['delimiter'])}-separated, "
            f"with a header row) whose `{column}` value is strictly greater than the mean of the `{column}` column "
            "over all data rows. The output is a comma-separated file that starts with the same header row, "
            "followed by the selected rows unchanged and in their original order."
        )
        produced = csv_output(out, list(d["header"]), list(d["numeric"]))
        return Step(
            operator=self.name,
            consumes=artifact.path,
            solution=solution,
            tests=tests,
            imports=["csv", "statistics"],
            instruction=instruction,
            produces=[produced],
        )


@register
class CsvToSqlite(Operator):
    """Load a CSV into a new SQLite database with typed columns."""

    name = "csv-to-sqlite"
    kinds = (Kind.CSV,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            outside_git(artifact, discovery)
            and "sqlite3" in discovery.python_modules
            and _csv_ok(artifact)
            and not _NON_FINITE.search(artifact.sample)
            # A column named like SQLite's row id hides it, and "in file order (ascending rowid)" breaks.
            and not {h.lower() for h in artifact.details["header"]} & {"rowid", "oid", "_rowid_"}
            and is_data(artifact)  # a summary loaded into a database is no new data source
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        header, body = d["header"], _full_body(artifact)
        table = slug(artifact.stem)
        table = f"t_{table}" if table[0].isdigit() or table.startswith("sqlite") else table
        types = {}
        for i, h in enumerate(header):
            if h not in d.get("numeric", []):
                types[h] = "TEXT"
            elif body is not None and all(_INT.fullmatch(r[i].strip()) for r in body):
                types[h] = "INTEGER"
            else:
                types[h] = "REAL"
        out = ctx.output_path(artifact, "db", "sqlite")
        args = f"{artifact.path!r}, {d['delimiter']!r}, {table!r}, {types!r}"
        solution = f"""python3 - <<'PY'
import csv, sqlite3
src, delim, table, types = {args}
cast = {{"INTEGER": lambda v: int(v.strip()), "REAL": float, "TEXT": str}}
with open(src, newline="") as f:
    reader = csv.reader(f, delimiter=delim)
    header = next(reader)
    rows = [[cast[types[h]](v) for h, v in zip(header, r)] for r in reader if r]
con = sqlite3.connect({out!r})
con.execute(f'CREATE TABLE "{{table}}" (' + ", ".join(f'"{{h}}" {{types[h]}}' for h in header) + ")")
con.executemany(f'INSERT INTO "{{table}}" VALUES (' + ", ".join("?" for _ in header) + ")", rows)
con.commit()
con.close()
PY"""
        tests = f"""
SRC, DELIM, TABLE, TYPES, OUT = {args}, {out!r}


def test_{ctx.tag}_csv_loaded_into_sqlite():
    assert pathlib.Path(OUT).is_file()
    with open(SRC, newline="") as f:
        reader = csv.reader(f, delimiter=DELIM)
        header, body = next(reader), [row for row in reader if row]
    con = sqlite3.connect(OUT)
    info = con.execute(f'PRAGMA table_info("{{TABLE}}")').fetchall()
    assert [(c[1], c[2].upper()) for c in info] == [(h, TYPES[h]) for h in header]
    quoted = ", ".join(f'"{{h}}"' for h in header)
    stored = con.execute(f'SELECT {{quoted}} FROM "{{TABLE}}" ORDER BY rowid').fetchall()
    con.close()
    assert len(stored) == len(body)
    for got, row in zip(stored, body):
        for h, value, text in zip(header, got, row):
            if TYPES[h] == "TEXT":
                assert value == text, (h, value, text)
            elif TYPES[h] == "INTEGER":
                assert isinstance(value, int) and value == int(text.strip()), (h, value, text)
            else:
                assert isinstance(value, (int, float)) and abs(value - float(text)) <= 1e-9 * max(1.0, abs(value))
"""
        columns = ", ".join(f"`{h}` {types[h]}" for h in header)
        instruction = (
            f"Next, load `{artifact.path}` ({delimiter_name(d['delimiter'])}-separated, with a header row) into a new "
            f"SQLite database file `{out}` with one table named `{table}` whose columns are the CSV's columns in "
            f"the same order, named as in the header, with exactly these declared types: {columns}. Store one "
            "table row per CSV data row, in file order (ascending rowid); INTEGER and REAL values are stored as "
            "numbers, TEXT values as the exact strings from the file."
        )
        produced = Artifact(
            path=out,
            kind=Kind.SQLITE,
            details={
                "tables": {table: list(header)},
                "types": {table: types},
                "rows": {table: d.get("rows")},
                "views": [],
                "not_null": {table: list(header)},
                # the same rows as the CSV: its columns keep their roles
                "columns": {table: {h: c.to_json() for h, c in csv_columns(artifact).items()}},
            },
        )
        return Step(
            operator=self.name,
            consumes=artifact.path,
            solution=solution,
            tests=tests,
            imports=["csv", "sqlite3"],
            instruction=instruction,
            produces=[produced],
        )
