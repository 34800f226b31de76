"""Operators on a SQLite table: export it to CSV in a stated order, add a per-group summary table."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import affinity, table_fitting
from rst_synth.proposers.procedural.operators.kit.tables import plain_names, sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git
from rst_synth.proposers.procedural.operators.sqlite.shipped import summary_table, table_to_csv
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render


@register
class SqliteTableToCsv(Operator):
    """Export one table of a SQLite database to CSV, in a stated order."""

    name = "sqlite-table-to-csv"
    purpose = Purpose.PREPARE
    converts = True
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
        params = {"SRC": artifact.path, "QUERY": query, "OUT": out}
        solution = python_script(render(table_to_csv, ["export_table"], **params), "export_table()")
        tests = render(table_to_csv, ["test_table_exported_in_order"], tag=ctx.tag, **params, COLUMNS=columns)
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
class SqliteAddSummaryTable(ReportOperator):
    """A per-group count/total table of a database, written to a new database of its own."""

    name = "sqlite-add-summary-table"
    uses = (Use.GROUP, Use.SUM)
    final = True
    kinds = (Kind.SQLITE,)

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
        params = {"SRC": artifact.path, "TABLE": table, "GROUP": group, "VALUE": value, "SUMMARY": summary, "OUT": out}
        # A database of its own, not a copy of the source plus one table: the copy repeated the
        # parent's data, and a small file leaves the mutation check's middle byte in a page header.
        solution = self.report_solution(render(summary_table, ["write_summary"], **params), call="write_summary()")
        tests = render(summary_table, ["test_summary_database"], tag=ctx.tag, **params)
        instruction = (
            f"Write a new SQLite database `{out}` that holds exactly one table, `{summary}`, with the "
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
