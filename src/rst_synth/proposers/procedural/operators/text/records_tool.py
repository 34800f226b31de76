"""A reusable tool over whitespace-separated records (a report, an audit, `key: value` lines): the tests
run it on fresh inputs they generate (tabs and spaces, CRLF, comments, malformed lines, non-ASCII keys,
empty input, standard input) and on the artifact."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use, column_roles
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.text import complete_sample
from rst_synth.proposers.procedural.operators.kit.workflow import (
    DECIMAL,
    RUN_TOOL,
    inside_git,
    tool_path,
    work_root,
)

MAX_BYTES = 64 * 1024
TOP = 5

TOP_PY = """
NUMBER = re.compile(r"-?\\d+(\\.\\d+)?")


def top(text, n, key, value):
    lines = text.split("\\n")
    if lines and lines[-1] == "":
        lines.pop()
    sums, malformed = {}, []
    for number, line in enumerate(lines, 1):
        fields = [f for f in re.split(r"[ \\t]+", line.removesuffix("\\r")) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < max(key, value) or not NUMBER.fullmatch(fields[value - 1]):
            malformed.append(number)
            continue
        name = fields[key - 1]
        sums[name] = sums.get(name, decimal.Decimal(0)) + decimal.Decimal(fields[value - 1])
    out = ["key\\tsum\\n"]
    for name in sorted(sums, key=lambda k: (-sums[k], k))[:n]:
        total = sums[name].quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        out.append(f"{name}\\t{abs(total) if total == 0 else total}\\n")
    return "".join(out), malformed
"""

FRESH_PY = """
def fresh(seed):
    rng = random.Random(seed)
    keys = ["Zürich", "東京", "alpha", "beta", "ünï-ß", "x.y"]
    width = max(KEY, VALUE) + rng.randint(0, 2)
    lines = ["# a comment", "", "   "]
    for i in range(40):
        fields = [f"w{rng.randint(0, 9)}" for _ in range(width)]
        fields[KEY - 1] = rng.choice(keys)
        fields[VALUE - 1] = rng.choice([str(rng.randint(-50, 500)), f"{rng.randint(-9999, 99999) / 100:.2f}"])
        lines.append(rng.choice([" ", "\\t", "  \\t "]).join(fields))
    lines.insert(7, "too-short")
    bad = [f"w{i}" for i in range(width)]
    bad[VALUE - 1] = "12,5"
    lines.insert(11, " ".join(bad))
    lines.insert(15, "\\t# indented comment")
    return "\\r\\n".join(lines) + "\\r\\n"
"""


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
class TextRecordsTool(Operator):
    """A top-N tool over whitespace-separated records with a stated contract, run on the artifact."""

    name = "text-records-tool"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0

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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import decimal, re, sys
{TOP_PY.strip()}
def main(argv):
    if len(argv) not in (2, 3) or not re.fullmatch(r"[0-9]+", argv[1]) or int(argv[1]) < 1:
        print("usage: N [FILE] with N a positive integer", file=sys.stderr)
        return 2
    data = open(argv[2], "rb").read() if len(argv) == 3 else sys.stdin.buffer.read()
    text, malformed = top(data.decode("utf-8"), int(argv[1]), {key}, {value})
    for number in malformed:
        print(f"line {{number}}: malformed", file=sys.stderr)
    sys.stdout.buffer.write(text.encode("utf-8"))
    return 0
sys.exit(main(sys.argv))
PY
chmod 0755 {q(tool)}
{q(tool)} {TOP} {q(artifact.path)} > {q(out)}"""
        tests = f"""
TOOL, SRC, OUT, KEY, VALUE, TOP = {tool!r}, {artifact.path!r}, {out!r}, {key}, {value}, {TOP}
{TOP_PY}{FRESH_PY}{RUN_TOOL}

def reported(stderr):
    return sorted(int(n) for n in re.findall(r"^line (\\d+): malformed$", stderr.decode("utf-8"), re.MULTILINE))


def test_{ctx.tag}_top_of_the_artifact():
    want, _ = top(pathlib.Path(SRC).read_bytes().decode("utf-8"), TOP, KEY, VALUE)
    assert pathlib.Path(OUT).read_bytes().decode("utf-8") == want


def test_{ctx.tag}_tool_on_fresh_inputs(tmp_path):
    for seed, n in (({ctx.rng.randrange(10**6)}, 3), (7, 100)):
        text = fresh(seed)
        want, malformed = top(text, n, KEY, VALUE)
        assert malformed
        path = tmp_path / "records.txt"
        path.write_bytes(text.encode("utf-8"))
        for done in (run_tool(TOOL, n, path), run_tool(TOOL, n, stdin=text.encode("utf-8"))):
            assert done.returncode == 0, done.stderr[-300:]
            assert done.stdout.decode("utf-8") == want
            assert reported(done.stderr) == malformed


def test_{ctx.tag}_tool_edge_cases(tmp_path):
    done = run_tool(TOOL, 2, stdin=b"")
    assert (done.returncode, done.stdout) == (0, b"key\\tsum\\n")
    for bad in ("0", "-1", "x"):
        done = run_tool(TOOL, bad, stdin=b"a 1\\n")
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), bad
"""
        instruction = (
            f"Next, write a reusable tool `{tool}` (an executable file with a `#!` line) for whitespace-separated "
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
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
