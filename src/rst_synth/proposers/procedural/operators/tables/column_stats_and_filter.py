"""Statistics of a table's numeric columns, and the rows above a column's mean (CSV to SQLite is in
sqlite/csv_to_sqlite.py)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.kit.tables import NON_FINITE, csv_ok
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git


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
            and csv_ok(artifact)
            and bool(csv_fitting(artifact, Use.STATS))
            and isinstance(d.get("rows"), int)
            and d["rows"] >= 2
            and not NON_FINITE.search(artifact.sample)
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
            solution=solution,
            tests=tests,
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
            and csv_ok(artifact)
            and bool(csv_fitting(artifact, Use.STATS))
            and isinstance(d.get("rows"), int)
            and d["rows"] >= 2
            and not NON_FINITE.search(artifact.sample)
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
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
