"""HTTP status codes by class: a code names a class of outcome by its first digit (2xx success, 4xx client
error, 5xx server error), so a table of codes and counts answers "what share of requests failed" only once
its codes are read that way."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Role, Use, words
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns, csv_fitting, sample_rows
from rst_synth.proposers.procedural.operators.logs.shipped import http_status_classes
from rst_synth.proposers.procedural.shipping import render

_HTTP = re.compile(r"[1-5]\d\d")


def _status_columns(artifact: Artifact) -> list[str]:
    """Code columns named for a status whose sampled values are all HTTP status codes, over two classes."""
    rows = sample_rows(artifact)
    found = []
    for name, column in csv_columns(artifact).items():
        values = [r[name].strip() for r in rows]
        if column.role is Role.CODE and "status" in words(name) and values and all(map(_HTTP.fullmatch, values)):
            if len({v[0] for v in values}) >= 2:
                found.append(name)
    return found


@register
class HttpStatusClasses(ReportOperator):
    """A measure per HTTP status class (1xx to 5xx) with each class's share of the whole."""

    name = "http-status-classes"
    uses = (Use.SUM,)
    kinds = (Kind.CSV,)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(_status_columns(artifact)) and bool(csv_fitting(artifact, Use.SUM))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        delim = artifact.details.get("delimiter", ",")
        status = ctx.rng.choice(_status_columns(artifact))
        measure = ctx.rng.choice(csv_fitting(artifact, Use.SUM))
        out = ctx.output_path(artifact, f"{measure}_by_status_class", "csv")
        params = {"SRC": artifact.path, "DELIM": delim, "STATUS": status, "MEASURE": measure, "OUT": out}
        solution = self.report_solution(
            render(http_status_classes, ["write_classes"], **params), call="write_classes()"
        )
        tests = render(
            http_status_classes,
            ["test_a_row_per_class_with_its_total", "test_shares_of_the_whole"],
            tag=ctx.tag,
            **params,
        )
        instruction = (
            f"Then read the `{status}` column of `{artifact.path}` ({delimiter_name(delim)}-separated, with a "
            f"header row) as HTTP status codes and total `{measure}` per status class: a code's class is its "
            "first digit followed by `xx` (`404` is `4xx`); rows whose code is not three digits from 100 to 599 "
            f"count in no class, and an empty `{measure}` counts as 0. Write `{out}`, a CSV with the header "
            f"`class,{measure},share` and exactly five rows, `1xx` to `5xx` in that order (0 where a class has "
            f"no rows): the class, the exact decimal sum of `{measure}` over its rows, and that sum as a share "
            "of the five classes' total with 4 decimals (`0.0000` when the total is 0)."
        )
        produced = csv_output(out, ["class", measure, "share"], [measure, "share"]).model_copy(
            update={"end_result": True}
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
