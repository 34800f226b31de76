"""A cross-tabulation: how the rows of a table fall across two ways of categorising them."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Role, Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns, csv_fitting, is_data, sample_rows
from rst_synth.proposers.procedural.operators.tables.shipped import crosstab
from rst_synth.proposers.procedural.shipping import render

MAX_COLUMN_VALUES = 12
"""More distinct values than this across the top makes a table nobody reads."""


def _pairs(artifact: Artifact) -> list[tuple[str, str]]:
    """(rows, columns): two different columns that categorise; the second one's values become columns."""
    columns = csv_columns(artifact)
    groups = csv_fitting(artifact, Use.GROUP)
    narrow = [g for g in groups if columns[g].distinct <= MAX_COLUMN_VALUES]
    # Rows by a true category (a team, a region): a cross of flags and codes alone counts nothing anyone asked.
    named = [g for g in groups if columns[g].role is Role.CATEGORY]
    rows = sample_rows(artifact)
    # A pair that names each row once (a region-by-month report) gives a table of ones: no count at all.
    return [(r, c) for r in named for c in narrow if r != c and len({(x[r], x[c]) for x in rows}) < len(rows)]


@register
class CsvCrosstab(ReportOperator):
    """Count the rows of a table for every pair of values of two categorising columns, with totals."""

    name = "csv-crosstab"
    uses = (Use.GROUP,)
    kinds = (Kind.CSV,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return is_data(artifact) and bool(_pairs(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        rows_by, cols_by = ctx.rng.choice(_pairs(artifact))
        out = ctx.output_path(artifact, f"{slug(rows_by)}_by_{slug(cols_by)}", "csv")
        params = {"SRC": artifact.path, "DELIM": d.get("delimiter", ","), "ROWS_BY": rows_by, "COLS_BY": cols_by}
        solution = self.report_solution(
            render(crosstab, ["write_crosstab"], **params, OUT=out), call="write_crosstab()"
        )
        tests = render(
            crosstab, ["test_crosstab_cells_and_order", "test_totals_add_up"], tag=ctx.tag, **params, OUT=out
        )
        instruction = (
            f"Cross-tabulate `{artifact.path}` ({delimiter_name(d.get('delimiter', ','))}-separated, with a "
            f"header row): count its data rows for every combination of a `{rows_by}` value and a `{cols_by}` "
            f"value, and write `{out}`, a comma-separated CSV: the header is `{rows_by}`, then every distinct "
            f"`{cols_by}` value in ascending code-point order, then `total`; then one row per distinct `{rows_by}` "
            f"value (ascending code-point order) with its count under each `{cols_by}` value (0 where none) and "
            "its row total; the last row is named `total` and holds each column's total and the grand total. "
            "Quote fields the standard CSV way where needed."
        )
        produced = csv_output(out, [rows_by, "total"], ["total"], end_result=True)
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
