"""A reusable tool over whitespace-separated records (a report, an audit, `key: value` lines): the tests
run it on fresh inputs they generate (tabs and spaces, CRLF, comments, malformed lines, non-ASCII keys,
empty input, standard input) and on the artifact."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use, column_roles
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.text import complete_sample
from rst_synth.proposers.procedural.operators.kit.workflow import DECIMAL, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.text.shipped import records_top
from rst_synth.proposers.procedural.shipping import render

MAX_BYTES = 64 * 1024
TOP = 5


def _layout(artifact: Artifact) -> tuple[int, int] | None:
    """(key field, value field), 1-based: a field that categorises and repeats, with more distinct values than
    the tool's top N (a top 5 of five keys ranks nothing), and the last field that is an additive measure, a
    decimal number on every record line (roles.py: never a row number, a code or a flag)."""
    text = complete_sample(artifact)
    if text is None or artifact.size > MAX_BYTES:
        return None
    rows = [re.split(r"[ \t]+", line.strip(" \t\r")) for line in text.split("\n")]
    rows = [r for r in rows if r and r[0] and not r[0].startswith("#")]
    if len(rows) < 2:
        return None
    width = min(len(r) for r in rows)
    names = [f"field {i + 1}" for i in range(width)]
    columns = column_roles(names, [r[:width] for r in rows])
    keys = [i for i, n in enumerate(names) if columns[n].fits(Use.GROUP) and columns[n].distinct > TOP]
    values = [i for i, n in enumerate(names) if columns[n].fits(Use.SUM) and all(DECIMAL.fullmatch(r[i]) for r in rows)]
    if not keys or not values or keys[0] == values[-1]:
        return None
    return keys[0] + 1, values[-1] + 1


@register
class TextRecordsTool(ToolOperator):
    """A top-N tool over whitespace-separated records with a stated contract, run on the artifact."""

    name = "text-records-tool"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.TEXT,)

    def input_of(self, artifact: Artifact) -> str:
        return f"layout:{_layout(artifact)}"  # the same key and value fields would get the same tool again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            _layout(artifact) is not None
            and not inside_git(artifact.path, discovery)
            and not inside_git(f"{work_root(discovery)}/bin/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        layout = _layout(artifact)
        assert layout is not None  # applies() checked it
        key, value = layout
        tool = tool_path(ctx, artifact, "top")
        out = ctx.output_path(artifact, f"top{TOP}", "tsv")
        code = render(records_top, ["main"], KEY=key, VALUE=value)
        run = f"{q(tool)} {TOP} {q(artifact.path)} > {q(out)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run)
        params = {"TOOL": tool, "SRC": artifact.path, "OUT": out, "KEY": key, "VALUE": value, "TOP": TOP}
        names = ["test_top_of_the_artifact", "test_tool_on_fresh_inputs", "test_tool_edge_cases"]
        seed = ctx.rng.randrange(10**6)
        tests = render(records_top, names, tag=ctx.tag, **params, SEED=seed)
        instruction = (
            f"Write a reusable tool `{tool}` (an executable file with a `#!` line) for whitespace-separated "
            f"records like those of `{artifact.path}`. `{tool} N [FILE]` reads FILE, or standard input when FILE "
            "is omitted (UTF-8). Each line (lines end with LF or CRLF) is split on runs of spaces and tabs; blank "
            "lines and lines whose first field starts with `#` are skipped. Field "
            f"{key} (counting from 1) is the key and field {value} the value, a decimal number (an optional `-`, "
            "digits, optionally `.` and digits). A line with fewer fields than that or whose value is not such a "
            "number is malformed: the tool writes `line L: malformed` (L its 1-based line number in the input) "
            "to standard error and ignores it. It prints the header line `key`, a tab, `sum`, then the N keys with "
            "the largest sums of their values, one line each as the key, a tab and the exact sum with exactly two "
            "decimals (halves rounded away from zero, zero written `0.00`), largest sum first, ties by key in "
            "code-point order, fewer lines when there are fewer keys (only the header for an empty input); keys "
            "are compared exactly (non-ASCII kept); every line ends with `\\n`. N must be "
            "a positive integer, otherwise the tool prints an error to standard error and exits with status 2 "
            f"without printing anything; otherwise it exits 0. Then run it with N = {TOP} on `{artifact.path}` "
            f"and save its standard output as `{out}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=out, kind=Kind.TEXT, details={"lines": TOP}),
                self.executable(tool),
            ],
        )
