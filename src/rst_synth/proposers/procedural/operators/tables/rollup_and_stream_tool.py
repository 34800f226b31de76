"""Reusable tools with a stated contract: the tests run the tool on fresh inputs they generate
(quoted fields, empty input, non-ASCII text, CRLF line endings, a 100x larger stream under a memory cap)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    planted_dir,
    run_at_build,
    stem_of,
    work_root,
)
from rst_synth.proposers.procedural.operators.tables.shipped import rollup_tool, stream_summary
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_tool, render


def _shape_ok(artifact: Artifact, discovery: Discovery, suffix: str) -> bool:
    return bool(open_pairs(csv_pairs(artifact), discovery, discovery.paths(), "bin", suffix)) and not inside_git(
        f"{work_root(discovery)}/bin/x", discovery
    )


@register
class CsvRollupTool(Operator):
    """A reusable rollup tool for any CSV with two named columns, run on the artifact."""

    name = "csv-rollup-tool"
    purpose = Purpose.TOOL
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return _shape_ok(artifact, discovery, "rollup") and not inside_git(artifact.path, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape, tool = contract_shape(artifact, ctx, "bin", "rollup")
        out = ctx.output_path(artifact, "rollup", "csv")
        params = {"GROUP": shape.group, "VALUE": shape.value}
        program = python_tool(render(rollup_tool, ["main"], **params), "sys.exit(main())")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
{program}PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} > {q(out)}"""
        tests = render(
            rollup_tool,
            ["test_rollup_of_the_artifact", "test_tool_on_fresh_inputs", "test_tool_rejects_a_missing_column"],
            tag=ctx.tag,
            TOOL=tool,
            SRC=artifact.path,
            OUT=out,
            **params,
            EDGE_VALUES=EDGE_VALUES,
            SEED=ctx.rng.randrange(10**6),
        )
        instruction = (
            f"Write a reusable command-line tool `{tool}` (an executable file with a `#!` line) with this "
            f"contract. `{tool} INPUT` reads the comma-separated file INPUT, whose header row has (among any "
            f"others, in any order) the columns `{shape.group}` and `{shape.value}`, and prints to standard output "
            f"a CSV with the header `{shape.group},rows,total` and one line per distinct `{shape.group}` value: "
            f"the number of data rows with that value and the sum of their `{shape.value}` values with exactly two "
            "decimals, computed exactly (decimal arithmetic; halves rounded away from zero; a total that rounds "
            f"to zero is `0.00`). An empty `{shape.value}` field counts the row and adds nothing. Order the lines "
            f"by the exact sum (largest first), ties by the `{shape.group}` value in code-point order. The input is "
            "UTF-8 and follows RFC 4180: quoted fields may hold commas, doubled quotes and line breaks, lines may "
            f"end in CRLF or LF, blank lines are skipped, and `{shape.group}` values are compared exactly as written "
            "(non-ASCII text kept as is). Output lines end with a single `\\n` (standard CSV quoting where a field "
            "needs it). An empty input file (0 bytes) or one with only a header prints just the header line. When "
            f"the header lacks `{shape.group}` or `{shape.value}`, the tool prints an error to standard error, "
            f"nothing to standard output, and exits with status 2; otherwise it exits 0. Then run it on "
            f"`{artifact.path}` and save its output as `{out}`."
        )
        produced = csv_output(out, [shape.group, "rows", "total"], ["rows", "total"])
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )


@register
class CsvStreamSummary(ToolOperator):
    """A streaming summary tool, proven on an input 100x larger than the artifact under a memory cap."""

    name = "csv-stream-summary"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3", "gzip")

    LIMIT_MB = 64
    TEST_ROWS = 300_000

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return _shape_ok(artifact, discovery, "stream") and not inside_git(artifact.path, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape, tool = contract_shape(artifact, ctx, "bin", "stream")
        big = f"{planted_dir(ctx)}/{stem_of(artifact)}_large.csv.gz"
        out = ctx.output_path(artifact, "large_summary", "csv")
        rows = min(200_000, max(50_000, 100 * max(1, artifact.details.get("rows") or len(shape.rows))))
        groups = sorted({*shape.groups, *(f"{shape.group}-{i}" for i in range(8))})
        seed = ctx.rng.randrange(10**6)
        params = {"GROUP": shape.group, "VALUE": shape.value}
        generator = python_tool(
            render(
                stream_summary,
                ["plant"],
                PLANTED=planted_dir(ctx),
                BIG=big,
                HEADER=shape.header,
                GROUPS=groups,
                ROWS=rows,
                SEED=seed,
                **params,
            ),
            "plant()",
        )
        run = f"gzip -dc {q(big)} | {q(tool)} > {q(out)}"
        solution = self.tool_solution(tool, render(stream_summary, ["main"], **params), "main()", run)
        tests = render(
            stream_summary,
            [
                "test_summary_of_the_large_input",
                "test_tool_streams_a_large_input_under_the_memory_cap",
                "test_tool_on_edge_inputs",
            ],
            tag=ctx.tag,
            TOOL=tool,
            BIG=big,
            OUT=out,
            **params,
            LIMIT_MB=self.LIMIT_MB,
            TEST_ROWS=self.TEST_ROWS,
            EDGE_VALUES=EDGE_VALUES,
            SEED=seed,
        )
        instruction = (
            f"The same kind of data as `{artifact.path}` has arrived 100 times larger: `{big}` "
            f"(gzip-compressed CSV with the same header, {rows} data rows). Write a streaming tool `{tool}` (an "
            "executable file with a `#!` line) that reads a UTF-8 comma-separated table (RFC 4180: quoted fields may "
            "hold commas, doubled quotes and line breaks; LF or CRLF line endings; a header row with the columns "
            f"`{shape.group}` and `{shape.value}` among others, in any order) from standard input and prints to "
            "standard output a CSV with the header "
            f"`{shape.group},rows,total,min,max` and one line per distinct `{shape.group}` value in code-point "
            f"order: its number of data rows and the sum, smallest and largest of its `{shape.value}` values "
            "(decimal numbers), each written with exactly two decimals (exact decimal arithmetic, halves rounded "
            "away from zero, zero written `0.00`). Empty input or a header alone prints just the header line. It "
            "must work in one pass with memory that does not grow with the input: it is run on 300,000 rows with "
            f"its address space limited to {self.LIMIT_MB} MiB and must finish within 60 seconds. Then run it on "
            f"the decompressed `{big}` and save its output as `{out}`."
        )
        # The summary of a made-up stress input proves the tool; nothing in the story builds on its figures.
        header, numeric = [shape.group, "rows", "total", "min", "max"], ["rows", "total", "min", "max"]
        produced = csv_output(out, header, numeric, rows=len(groups), end_result=True)
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=run_at_build(generator),
            produces=[produced, self.executable(tool)],
        )
