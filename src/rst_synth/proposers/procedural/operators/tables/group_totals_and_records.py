"""Operators on CSV artifacts."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.tables.shipped import group_totals, json_records
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render


def _pairs(artifact: Artifact) -> list[tuple[str, str]]:
    """(group, value): a column that categorises and repeats, and an additive measure to total per group."""
    return [(g, v) for g in csv_fitting(artifact, Use.GROUP) for v in csv_fitting(artifact, Use.SUM) if g != v]


@register
class CsvGroupTotals(ReportOperator):
    """Sum an additive measure per value of a column that categorises."""

    name = "csv-group-totals"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(_pairs(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        group, value = ctx.rng.choice(_pairs(artifact))
        total = f"total_{slug(value)}"
        out = ctx.output_path(artifact, f"by_{slug(group)}", "csv")
        params = {"SRC": artifact.path, "DELIM": d["delimiter"], "GROUP": group, "VALUE": value, "OUT": out}
        solution = self.report_solution(
            render(group_totals, ["write_totals"], **params, TOTAL=total), call="write_totals()"
        )
        tests = render(group_totals, ["test_header_and_totals", "test_order"], tag=ctx.tag, **params, TOTAL=total)
        instruction = (
            f"Total the `{value}` column of `{artifact.path}` ({delimiter_name(d['delimiter'])}-separated, "
            f"with a header row) for each distinct `{group}` value, and write the totals to `{out}`: a "
            f"comma-separated file with the header `{group},{total}`, one row per `{group}` value, each total "
            f"written with exactly two decimals, rows ordered by total (largest first), ties broken by the "
            f"`{group}` value in ascending string order."
        )
        produced = Artifact(
            path=out,
            kind=Kind.CSV,
            end_result=True,  # one row per group: a summary, never a batch or a source to group again
            details={"header": [group, total], "numeric": [total], "categorical": [], "rows": None, "delimiter": ","},
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class CsvToJsonRecords(Operator):
    """Convert a CSV into a JSON array of typed records."""

    name = "csv-to-json-records"
    purpose = Purpose.PREPARE
    converts = True
    final = True
    kinds = (Kind.CSV,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(artifact.details.get("header"))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        numeric = [h for h in d["header"] if h in d.get("numeric", [])]
        out = ctx.output_path(artifact, "records", "json")
        params = {"SRC": artifact.path, "DELIM": d["delimiter"], "NUMERIC": numeric, "OUT": out}
        solution = python_script(render(json_records, ["write_records"], **params), "write_records()")
        tests = render(json_records, ["test_one_record_per_row_in_order"], tag=ctx.tag, **params)
        typed = ", ".join(f"`{n}`" for n in numeric) or "none"
        instruction = (
            f"Then convert `{artifact.path}` into `{out}`: a JSON array with one object per data row, in file "
            f"order, whose keys are the CSV's column names. Values of the numeric columns ({typed}) are JSON "
            "numbers; every other value stays a string exactly as in the CSV."
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={
                "type": "records",
                "length": d.get("rows"),
                "keys": sorted(d["header"]),
                "numeric_keys": sorted(numeric),
                "string_keys": sorted(h for h in d["header"] if h not in numeric),
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
