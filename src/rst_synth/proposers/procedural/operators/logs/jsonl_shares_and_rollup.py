"""Operators on JSON Lines logs (one event object per line): the data a service or a job appends to."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.kit.text import MAX_TEXT_BYTES
from rst_synth.proposers.procedural.operators.kit.workflow import EDGE_VALUES, RUN_TOOL, inside_git, tool_path
from rst_synth.proposers.procedural.operators.logs.shipped import group_shares
from rst_synth.proposers.procedural.shipping import python_script, render


def _pairs(artifact: Artifact) -> list[tuple[str, str]]:
    """(group, value): a string key that categorises and repeats, and an additive measure to share out."""
    strings = set(artifact.details.get("string_keys") or [])
    groups = [g for g in csv_fitting(artifact, Use.GROUP) if g in strings]
    return [(g, v) for g in groups for v in csv_fitting(artifact, Use.SUM) if g != v]


def report(path: str, header: list[str]) -> Artifact:
    """A per-category CSV a step writes: one row per category is an end result, never a batch or a source
    to group again."""
    return csv_output(path, header, header[1:]).model_copy(update={"end_result": True})


@register
class JsonlGroupShares(Operator):
    """Per category of an event log: how many events, their total measure and its share of the whole."""

    name = "jsonl-group-shares"
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.TEXT,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return d.get("format") == "jsonl" and artifact.size <= MAX_TEXT_BYTES and bool(_pairs(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        group, value = ctx.rng.choice(_pairs(artifact))
        total = f"total_{slug(value)}"
        out = ctx.output_path(artifact, f"{slug(value)}_by_{slug(group)}", "csv")
        params = {"SRC": artifact.path, "GROUP": group, "VALUE": value, "TOTAL": total, "OUT": out}
        solution = python_script(render(group_shares, ["write_shares"], **params), "write_shares()")
        tests = render(
            group_shares, ["test_header_counts_and_totals", "test_shares_make_the_whole"], tag=ctx.tag, **params
        )
        instruction = (
            f"Next, report how `{artifact.path}` (JSON Lines: one event object per line; skip blank lines) "
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


ROLLUP_JSONL_PY = """
def rollup(lines, group, value):
    counts, totals, skipped = {}, {}, 0
    for line in lines:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        amount = event.get(value) if isinstance(event, dict) else None
        if not isinstance(event, dict) or not isinstance(event.get(group), str) or (
            amount is not None and (isinstance(amount, bool) or not isinstance(amount, (int, float)))
        ):
            skipped += 1
            continue
        key = event[group]
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(str(amount or 0))
    cent = decimal.Decimal("0.01")
    rows = []
    for key in sorted(counts, key=lambda k: (-totals[k], k)):
        total = totals[key].quantize(cent, rounding=decimal.ROUND_HALF_UP)
        rows.append([key, str(counts[key]), str(abs(total) if total == 0 else total)])
    return rows, skipped
"""

FRESH_EVENTS_PY = """
def fresh_events(group, value, seed):
    rng = random.Random(seed)
    lines = []
    for i in range(400):
        roll = rng.random()
        event = {"seq": i, group: rng.choice(EDGE_VALUES), value: rng.randint(-50000, 900000) / 1000}
        if roll < 0.05:
            lines.append("{not json")
        elif roll < 0.08:
            event.pop(value)
            lines.append(json.dumps(event, ensure_ascii=rng.random() < 0.5))
        elif roll < 0.10:
            event[group] = rng.randint(1, 9)
            lines.append(json.dumps(event))
        elif roll < 0.12:
            lines.append("   ")
        else:
            lines.append(json.dumps(event, ensure_ascii=rng.random() < 0.5))
    return "\\n".join(lines) + "\\n"
"""


@register
class JsonlRollupTool(Operator):
    """A reusable tool that rolls up any JSON Lines event log by a category, tolerant of bad lines."""

    name = "jsonl-rollup-tool"
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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import csv, decimal, json, sys
{ROLLUP_JSONL_PY.strip()}
if len(sys.argv) != 4:
    print("usage: rollup LOG GROUP VALUE", file=sys.stderr)
    sys.exit(2)
with open(sys.argv[1], encoding="utf-8") as f:
    rows, skipped = rollup(f, sys.argv[2], sys.argv[3])
writer = csv.writer(sys.stdout, lineterminator="\\n")
writer.writerow([sys.argv[2], "events", "total"])
writer.writerows(rows)
if skipped:
    print(f"skipped {{skipped}} lines", file=sys.stderr)
PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} {q(group)} {q(value)} > {q(out)}"""
        tests = f"""
TOOL, SRC, OUT, GROUP, VALUE = {tool!r}, {artifact.path!r}, {out!r}, {group!r}, {value!r}
EDGE_VALUES = {EDGE_VALUES!r}
{ROLLUP_JSONL_PY}{FRESH_EVENTS_PY}{RUN_TOOL}

def parsed(text):
    return [row for row in csv.reader(io.StringIO(text, newline="")) if row]


def test_{ctx.tag}_rollup_of_the_log():
    with open(SRC, encoding="utf-8") as f:
        want, _ = rollup(f, GROUP, VALUE)
    assert parsed(pathlib.Path(OUT).read_text(encoding="utf-8")) == [[GROUP, "events", "total"], *want]


def test_{ctx.tag}_tool_on_fresh_logs_with_bad_lines(tmp_path):
    for seed in (1, 2, 3):
        text = fresh_events("kind", "amount", {ctx.rng.randrange(10**6)} + seed)
        path = tmp_path / f"log{{seed}}.jsonl"
        path.write_bytes(text.encode("utf-8"))
        done = run_tool(TOOL, path, "kind", "amount")
        assert done.returncode == 0, done.stderr[-500:]
        want, skipped = rollup(text.splitlines(), "kind", "amount")
        assert parsed(done.stdout.decode("utf-8")) == [["kind", "events", "total"], *want], seed
        assert re.search(rf"\\bskipped {{skipped}} lines\\b", done.stderr.decode("utf-8")), done.stderr[-300:]


def test_{ctx.tag}_tool_usage_error():
    done = run_tool(TOOL, SRC)
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip()
"""
        instruction = (
            f"Next, write a reusable command-line tool `{tool}` (an executable file with a `#!` line): "
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
