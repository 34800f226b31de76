"""Statistics of a table's numeric columns, and the rows above a column's mean (CSV to SQLite is in
sqlite/csv_to_sqlite.py)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.kit.tables import NON_FINITE, csv_ok
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git
from rst_synth.proposers.procedural.operators.tables.shipped import column_stats, filter_above_mean
from rst_synth.proposers.procedural.shipping import render


@register
class CsvColumnStats(ReportOperator):
    """Min, max, mean and median of every numeric column, as a JSON object."""

    name = "csv-column-stats"
    uses = (Use.STATS,)
    final = True
    kinds = (Kind.CSV,)

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
        params = {"SRC": artifact.path, "DELIM": d["delimiter"], "COLUMNS": columns, "OUT": out}
        solution = self.report_solution(render(column_stats, ["write_stats"], **params), call="write_stats()")
        tests = render(column_stats, ["test_column_stats"], tag=ctx.tag, **params)
        names = ", ".join(f"`{c}`" for c in columns)
        instruction = (
            f"Compute statistics of the measure columns ({names}) of `{artifact.path}` "
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
class CsvFilterAboveMean(ReportOperator):
    """Keep the rows whose numeric column is strictly above that column's mean."""

    name = "csv-filter-above-mean"
    uses = (Use.STATS,)
    final = True
    kinds = (Kind.CSV,)

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
        params = {"SRC": artifact.path, "DELIM": d["delimiter"], "COLUMN": column, "OUT": out}
        solution = self.report_solution(
            render(filter_above_mean, ["write_above_mean"], **params), call="write_above_mean()"
        )
        tests = render(filter_above_mean, ["test_rows_above_mean_in_order"], tag=ctx.tag, **params)
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
