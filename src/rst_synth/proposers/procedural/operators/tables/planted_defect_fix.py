"""A realistic defect planted in the environment: a report tool with one bug (an off-by-one, a float
sum, a text sort, a missing trim, a bad regex), to diagnose and fix; checked by the tool's behaviour."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    RUN_TOOL,
    contract_shape,
    csv_pairs,
    inside_git,
    open_pairs,
    plant,
    work_root,
)

REPORT_PY = """import csv
import decimal
import re
import sys

NUMBER = re.compile(r"-?\\d+(\\.\\d+)?")
CENT = decimal.Decimal("0.01")


def fmt(amount):
    amount = amount.quantize(CENT, rounding=decimal.ROUND_HALF_UP)
    return str(abs(amount) if amount == 0 else amount)


def report(src, dst, group, value):
    with open(src, encoding="utf-8", newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    header, body = rows[0], rows[1:]
    g, v = header.index(group), header.index(value)
    counts, totals = {}, {}
    for row in body:
        if not NUMBER.fullmatch(row[v].strip()):
            continue
        key = row[g].strip()
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(row[v].strip())
    order = sorted(totals, key=lambda k: (-totals[k], k))
    with open(dst, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\\n")
        writer.writerow([group, "count", "total"])
        for key in order:
            writer.writerow([key, counts[key], fmt(totals[key])])


if __name__ == "__main__":
    report(sys.argv[1], sys.argv[2], GROUP, VALUE)
"""
"""The correct tool; GROUP and VALUE are bound when it is planted. Each defect below changes one line."""

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
"""Defect name -> (the correct line, the planted line)."""

FLOAT_FMT = """

def fmt(amount):
    if isinstance(amount, float):
        return f"{round(amount, 2):.2f}"
    amount = amount.quantize(CENT, rounding=decimal.ROUND_HALF_UP)
    return str(abs(amount) if amount == 0 else amount)
"""

FRESH_INPUTS = """
def fresh_inputs(seed):
    rng = random.Random(seed)
    pool = list(EDGE_VALUES) + ["north", " north ", "south"]
    filler = next(n for n in ("note", "note_") if n not in (GROUP, VALUE))
    header = [VALUE, filler, GROUP]
    rows = [[f"{rng.randint(-9000, 9000) / 100:.2f}", f"n{i}", rng.choice(pool)] for i in range(40)]
    rows += [["1.005", "half", "half-a"], ["2.675", "half", "half-b"], ["9", "int", "nine"], ["10", "int", "ten"]]
    rows += [["n/a", "skip", "north"], ["", "skip", "south"], ["-7", "neg", "south"], ["12.5", "last", "tail"]]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=rng.choice(["\\n", "\\r\\n"])).writerows([header] + rows)
    return buffer.getvalue()
"""


@register
class PlantedDefectFix(Operator):
    """Diagnose and fix the one defect of a planted report tool, then run it on the artifact."""

    name = "planted-defect-fix"
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
        bound = f"GROUP, VALUE = {shape.group!r}, {shape.value!r}\n"
        correct = REPORT_PY.replace('if __name__ == "__main__":', bound + '\nif __name__ == "__main__":')
        good, bad = DEFECTS[defect]
        planted = correct.replace(good, bad)
        if defect == "float_sum":
            planted = planted.replace(
                "\n\ndef fmt(amount):\n    amount = amount.quantize(CENT, rounding=decimal.ROUND_HALF_UP)\n"
                "    return str(abs(amount) if amount == 0 else amount)\n",
                FLOAT_FMT,
            )
        assert planted != correct, defect
        # The fix is the whole correct file: any edit that restores the contract passes the tests.
        solution = f"""cat > {q(tool)} <<'PY'
{correct.rstrip()}
PY
python3 {q(tool)} {q(artifact.path)} {q(out)}"""
        tests = f"""
TOOL, SRC, OUT, GROUP, VALUE = {tool!r}, {artifact.path!r}, {out!r}, {shape.group!r}, {shape.value!r}
EDGE_VALUES = {EDGE_VALUES!r}
{RUN_TOOL}{FRESH_INPUTS}
NUMBER = re.compile(r"-?\\d+(\\.\\d+)?")


def expected(text):
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    g, v = rows[0].index(GROUP), rows[0].index(VALUE)
    counts, totals = {{}}, {{}}
    for row in rows[1:]:
        if NUMBER.fullmatch(row[v].strip()):
            key = row[g].strip()
            counts[key] = counts.get(key, 0) + 1
            totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(row[v].strip())
    out = [[GROUP, "count", "total"]]
    for key in sorted(totals, key=lambda k: (-totals[k], k)):
        total = totals[key].quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        out.append([key, str(counts[key]), str(abs(total) if total == 0 else total)])
    return out


def parsed(path):
    with open(path, encoding="utf-8", newline="") as f:
        return [row for row in csv.reader(f) if row]


def test_{ctx.tag}_report_of_the_artifact():
    assert parsed(OUT) == expected(pathlib.Path(SRC).read_text(encoding="utf-8"))


def test_{ctx.tag}_fixed_tool_on_fresh_inputs(tmp_path):
    for seed in range(3):
        text = fresh_inputs({ctx.rng.randrange(10**6)} + seed)
        src, dst = tmp_path / f"in{{seed}}.csv", tmp_path / f"out{{seed}}.csv"
        src.write_bytes(text.encode("utf-8"))
        done = run_tool("python3", TOOL, src, dst)
        assert done.returncode == 0, done.stderr[-500:]
        assert parsed(dst) == expected(text), seed
"""
        instruction = (
            f"Next, the report tool `{tool}` gives wrong results for some inputs. Its contract: "
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
