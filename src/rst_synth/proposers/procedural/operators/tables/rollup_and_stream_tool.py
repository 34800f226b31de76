"""Reusable tools with a stated contract: the tests run the tool on fresh inputs they generate
(quoted fields, empty input, non-ASCII text, CRLF line endings, a 100x larger stream under a memory cap)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit import testkit
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    RUN_TOOL,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    planted_dir,
    run_at_build,
    stem_of,
    work_root,
)
from rst_synth.proposers.procedural.operators.tables.shipped import rollup_tool
from rst_synth.proposers.procedural.shipping import python_tool, render


def _shape_ok(artifact: Artifact, discovery: Discovery, suffix: str) -> bool:
    return bool(open_pairs(csv_pairs(artifact), discovery, discovery.paths(), "bin", suffix)) and not inside_git(
        f"{work_root(discovery)}/bin/x", discovery
    )


@register
class CsvRollupTool(Operator):
    """A reusable rollup tool for any CSV with two named columns, run on the artifact."""

    name = "csv-rollup-tool"
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
        tests += "\n\n" + render(testkit, ["run_tool"])
        instruction = (
            f"Next, write a reusable command-line tool `{tool}` (an executable file with a `#!` line) with this "
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


STREAM_PY = """
def summarise(lines, group, value):
    reader = csv.reader(lines)
    header = next(reader, None)
    out = [[group, "rows", "total", "min", "max"]]
    if header is None:
        return out
    g, v = header.index(group), header.index(value)
    stats = {}
    for row in reader:
        if not row:
            continue
        amount = decimal.Decimal(row[v])
        n, total, low, high = stats.get(row[g], (0, decimal.Decimal(0), amount, amount))
        stats[row[g]] = (n + 1, total + amount, min(low, amount), max(high, amount))
    cent = decimal.Decimal("0.01")

    def fmt(number):
        number = number.quantize(cent, rounding=decimal.ROUND_HALF_UP)
        return str(abs(number) if number == 0 else number)

    for key in sorted(stats):
        n, total, low, high = stats[key]
        out.append([key, str(n), fmt(total), fmt(low), fmt(high)])
    return out
"""

GENERATE_PY = """
def generate(path, header, group, value, groups, rows, seed):
    rng = random.Random(seed)
    g, v = header.index(group), header.index(value)
    with gzip.open(path, "wt", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\\n")
        writer.writerow(header)
        for i in range(rows):
            row = [f"n{rng.randint(0, 999)}" for _ in header]
            row[g] = rng.choice(groups)
            row[v] = f"{rng.randint(-20000, 500000) / 100:.2f}"
            writer.writerow(row)
"""


@register
class CsvStreamSummary(Operator):
    """A streaming summary tool, proven on an input 100x larger than the artifact under a memory cap."""

    name = "csv-stream-summary"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3", "gzip")
    weight = 3.0

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
        args = f"{shape.group!r}, {shape.value!r}"
        generator = (
            f"import csv, gzip, os, random\n{GENERATE_PY}\nos.makedirs({planted_dir(ctx)!r}, exist_ok=True)\n"
            f"generate({big!r}, {shape.header!r}, {args}, {groups!r}, {rows}, {seed})\n"
        )
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import csv, decimal, io, sys
{STREAM_PY.strip()}
stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
csv.writer(sys.stdout, lineterminator="\\n").writerows(summarise(stdin, {args}))
PY
chmod 0755 {q(tool)}
gzip -dc {q(big)} | {q(tool)} > {q(out)}"""
        tests = f"""
TOOL, BIG, OUT, GROUP, VALUE, LIMIT_MB = {tool!r}, {big!r}, {out!r}, {args}, {self.LIMIT_MB}
{STREAM_PY}{RUN_TOOL}

def parsed(data):
    return [row for row in csv.reader(io.StringIO(data.decode("utf-8"), newline="")) if row]


def fresh_input(rows, seed, end="\\n"):
    rng = random.Random(seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=end)
    writer.writerow([next(n for n in ("note", "note_") if n not in (GROUP, VALUE)), VALUE, GROUP])
    for i in range(rows):
        writer.writerow([f"r{{i}}", f"{{rng.randint(-9999, 99999) / 100:.2f}}", rng.choice({EDGE_VALUES!r})])
    return buffer.getvalue()


def test_{ctx.tag}_summary_of_the_large_input():
    with gzip.open(BIG, "rt", encoding="utf-8", newline="") as f:
        want = summarise(f, GROUP, VALUE)
    assert len(want) > 1
    assert parsed(pathlib.Path(OUT).read_bytes()) == want


def test_{ctx.tag}_tool_streams_a_large_input_under_the_memory_cap():
    text = fresh_input({self.TEST_ROWS}, {seed + 1})
    done = run_tool(TOOL, stdin=text.encode("utf-8"), limit_mb=LIMIT_MB, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert parsed(done.stdout) == summarise(io.StringIO(text, newline=""), GROUP, VALUE)


def test_{ctx.tag}_tool_on_edge_inputs():
    for text in (fresh_input(25, {seed + 2}, "\\r\\n"), fresh_input(0, 0), ""):
        done = run_tool(TOOL, stdin=text.encode("utf-8"), limit_mb=LIMIT_MB, timeout=60)
        assert done.returncode == 0, done.stderr[-500:]
        assert parsed(done.stdout) == summarise(io.StringIO(text, newline=""), GROUP, VALUE)
"""
        instruction = (
            f"Next, the same kind of data as `{artifact.path}` has arrived 100 times larger: `{big}` "
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
        produced = csv_output(
            out, [shape.group, "rows", "total", "min", "max"], ["rows", "total", "min", "max"], rows=len(groups)
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=run_at_build(generator),
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
