"""Operators on JSON Lines logs (one event object per line): the data a service or a job appends to."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.kit.text import MAX_TEXT_BYTES
from rst_synth.proposers.procedural.operators.kit.workflow import EDGE_VALUES, inside_git, tool_path
from rst_synth.proposers.procedural.operators.logs.shipped import group_shares, rollup_tool
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_tool, render


def _pairs(artifact: Artifact) -> list[tuple[str, str]]:
    """(group, value): a string key that categorises and repeats, and an additive measure to share out."""
    strings = set(artifact.details.get("string_keys") or [])
    groups = [g for g in csv_fitting(artifact, Use.GROUP) if g in strings]
    return [(g, v) for g in groups for v in csv_fitting(artifact, Use.SUM) if g != v]


def report(path: str, header: list[str]) -> Artifact:
    """A per-category CSV a step writes: one row per category is an end result, never a batch or a source
    to group again."""
    return csv_output(path, header, header[1:], end_result=True)


@register
class JsonlGroupShares(ReportOperator):
    """Per category of an event log: how many events, their total measure and its share of the whole."""

    name = "jsonl-group-shares"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.TEXT,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return d.get("format") == "jsonl" and artifact.size <= MAX_TEXT_BYTES and bool(_pairs(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        group, value = ctx.rng.choice(_pairs(artifact))
        total = f"total_{slug(value)}"
        out = ctx.output_path(artifact, f"{slug(value)}_by_{slug(group)}", "csv")
        params = {"SRC": artifact.path, "GROUP": group, "VALUE": value, "TOTAL": total, "OUT": out}
        solution = self.report_solution(render(group_shares, ["write_shares"], **params), call="write_shares()")
        tests = render(
            group_shares, ["test_header_counts_and_totals", "test_shares_make_the_whole"], tag=ctx.tag, **params
        )
        instruction = (
            f"Report how `{artifact.path}` (JSON Lines: one event object per line; skip blank lines) "
            f"divides up by `{group}`: write `{out}`, a comma-separated CSV file with the header "
            f"`{group},events,{total},share_pct` and one row per distinct `{group}` value holding the number "
            f"of events with that value, the sum of their `{value}` (exactly two decimals) and that sum as a "
            f"percentage of the `{value}` of all events (one decimal). Order the rows by the total, largest "
            f"first, ties broken by the `{group}` value in ascending code-point order."
        )
        produced = report(out, [group, "events", total, "share_pct"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class JsonlRollupTool(Operator):
    """A reusable tool that rolls up any JSON Lines event log by a category, tolerant of bad lines."""

    name = "jsonl-rollup-tool"
    purpose = Purpose.TOOL
    once = True  # the tool is the same program whatever the log: a second step would copy it
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return JsonlGroupShares().applies(artifact, discovery) and not inside_git(artifact.path, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        group, value = ctx.rng.choice(_pairs(artifact))
        tool = tool_path(ctx, artifact, "rollup")
        out = ctx.output_path(artifact, f"{slug(group)}_rollup", "csv")
        params = {"TOOL": tool, "SRC": artifact.path, "OUT": out, "GROUP": group, "VALUE": value}
        program = python_tool(render(rollup_tool, ["main"]), "main()")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
{program}PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} {q(group)} {q(value)} > {q(out)}"""
        tests = render(
            rollup_tool,
            ["test_rollup_of_the_log", "test_tool_on_fresh_logs_with_bad_lines", "test_tool_usage_error"],
            tag=ctx.tag,
            **params,
            EDGE_VALUES=EDGE_VALUES,
            SEED=ctx.rng.randrange(10**6),
        )
        instruction = (
            f"Write a reusable command-line tool `{tool}` (an executable file with a `#!` line): "
            f"`{tool} LOG GROUP VALUE` reads LOG, a UTF-8 JSON Lines file (one JSON object per line), and prints "
            "to standard output a CSV with the header `GROUP,events,total` (the GROUP argument as the first "
            "column's name) and one line per distinct value of the event key GROUP: the number of events with "
            "that value and the exact sum of their VALUE numbers with exactly two decimals (decimal arithmetic "
            "on the number as written; halves rounded away from zero; a total that rounds to zero is `0.00`). "
            "An event without the VALUE key counts and adds nothing. Blank lines are ignored; a line that is not "
            "a JSON object, whose GROUP is missing or not a string, or whose VALUE is present but not a number "
            "(booleans are not numbers) is skipped, and when any line was skipped the tool prints `skipped N "
            "lines` to standard error. Order the lines by the exact total (largest first), ties by the GROUP "
            "value in code-point order; values are kept exactly as written (commas, quotes, line breaks and "
            "non-ASCII text, quoted the standard CSV way), output lines end with `\\n`, and the exit status is "
            "0. With any other number of arguments it prints a usage line to standard error, nothing to "
            f"standard output, and exits with status 2. Then run it on `{artifact.path}` with GROUP `{group}` "
            f"and VALUE `{value}` and save its output as `{out}`."
        )
        produced = report(out, [group, "events", "total"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
