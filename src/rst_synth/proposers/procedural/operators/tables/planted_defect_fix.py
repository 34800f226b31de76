"""A realistic defect planted in the environment: a report tool with one bug (an off-by-one, a float
sum, a text sort, a missing trim, a bad regex), to diagnose and fix; checked by the tool's behaviour."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    plant,
    work_root,
)
from rst_synth.proposers.procedural.operators.tables.shipped import planted_defect_fix
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_tool, render

DEFECTS = {
    "off_by_one": ("header, body = rows[0], rows[1:]", "header, body = rows[0], rows[1:-1]"),
    "float_sum": (
        "totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(row[v].strip())",
        "totals[key] = totals.get(key, 0.0) + float(row[v].strip())",
    ),
    "text_sort": (
        "order = sorted(totals, key=lambda k: (-totals[k], k))",
        "order = sorted(totals, key=lambda k: (fmt(totals[k]), k), reverse=True)",
    ),
    "missing_trim": ("key = row[g].strip()", "key = row[g]"),
    "bad_regex": ('NUMBER = re.compile(r"-?\\d+(\\.\\d+)?")', 'NUMBER = re.compile(r"\\d+\\.\\d+")'),
}
"""Defect name -> (the correct line of the shipped tool, the planted line)."""


def report_tools(group: str, value: str, defect: str) -> tuple[str, str]:
    """The text of the correct report tool for the columns `group` and `value`, and of the tool with `defect`
    planted. Either runs as `python3 TOOL INPUT OUTPUT`, as it always did: no `#!` line."""
    params = {"GROUP": group, "VALUE": value}
    call = 'if __name__ == "__main__":\n    main(sys.argv)'
    correct = python_tool(render(planted_defect_fix, ["main"], **params), call).removeprefix("#!/usr/bin/env python3\n")
    good, bad = DEFECTS[defect]
    planted = correct.replace(good, bad)
    if defect == "float_sum":  # float totals need a formatter that takes floats, or the tool would crash
        floats = render(planted_defect_fix, ["fmt_of_float_sum"]).replace("def fmt_of_float_sum(", "def fmt(")
        planted = planted.replace(render(planted_defect_fix, ["fmt"]), floats)
    assert planted != correct and "fmt_of_float_sum" not in planted, defect
    return correct, planted


@register
class PlantedDefectFix(Operator):
    """Diagnose and fix the one defect of a planted report tool, then run it on the artifact."""

    name = "planted-defect-fix"
    purpose = Purpose.REPAIR
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            bool(open_pairs(csv_pairs(artifact), discovery, discovery.paths(), "tools", "report.py"))
            and not inside_git(artifact.path, discovery)
            and not inside_git(f"{work_root(discovery)}/tools/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape, tool = contract_shape(artifact, ctx, "tools", "report.py")
        defect = ctx.rng.choice(sorted(DEFECTS))
        out = ctx.output_path(artifact, "report", "csv")
        seed = ctx.rng.randrange(10**6)
        correct, planted = report_tools(shape.group, shape.value, defect)
        # The fix is the whole correct file: any edit that restores the contract passes the tests.
        solution = f"""cat > {q(tool)} <<'PY'
{correct.rstrip()}
PY
python3 {q(tool)} {q(artifact.path)} {q(out)}"""
        tests = render(
            planted_defect_fix,
            ["test_report_of_the_artifact", "test_fixed_tool_on_fresh_inputs"],
            tag=ctx.tag,
            TOOL=tool,
            SRC=artifact.path,
            OUT=out,
            SEED=seed,
            GROUP=shape.group,
            VALUE=shape.value,
            EDGE_VALUES=EDGE_VALUES,
        )
        instruction = (
            f"The report tool `{tool}` gives wrong results for some inputs. Its contract: "
            f"`python3 {tool} INPUT OUTPUT` reads the UTF-8 comma-separated file INPUT (RFC 4180 quoting, LF or "
            f"CRLF line endings, a header row with the columns `{shape.group}` and `{shape.value}` among others, "
            "blank lines skipped) and writes OUTPUT: a CSV with the header "
            f"`{shape.group},count,total` and one line per distinct `{shape.group}` value with surrounding "
            f"whitespace removed, giving its number of rows and the exact decimal sum of their `{shape.value}` "
            "values with exactly two decimals (halves rounded away from zero, zero written `0.00`). Rows whose "
            f"`{shape.value}`, with surrounding whitespace removed, is not a decimal number (an optional `-`, digits, "
            "and optionally a `.` followed by digits) are left out entirely. Lines are ordered by the exact sum "
            f"(largest first), ties by the `{shape.group}` value in code-point order, and end with `\\n`. Find and "
            f"fix the defect in `{tool}` (keep its command line), then run it on `{artifact.path}` to write `{out}`."
        )
        produced = csv_output(out, [shape.group, "count", "total"], ["count", "total"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(tool, planted),
            produces=[produced, Artifact(path=tool, kind=Kind.PYTHON_SOURCE)],
        )
