"""Operators on JSON Lines logs (one event object per line): the data a service or a job appends to."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.csv_ops import slug
from rst_synth.proposers.procedural.operators.roles import csv_fitting
from rst_synth.proposers.procedural.operators.text_json_ops import MAX_TEXT_BYTES


def _pairs(artifact: Artifact) -> list[tuple[str, str]]:
    """(group, value): a string key that categorises and repeats, and an additive measure to share out."""
    strings = set(artifact.details.get("string_keys") or [])
    groups = [g for g in csv_fitting(artifact, Use.GROUP) if g in strings]
    return [(g, v) for g in groups for v in csv_fitting(artifact, Use.SUM) if g != v]


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
        args = f"{artifact.path!r}, {group!r}, {value!r}"
        core = """
def shares(path, group, value):
    counts, totals = collections.Counter(), collections.defaultdict(float)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                event = json.loads(line)
                counts[event[group]] += 1
                totals[event[group]] += event[value]
    whole = sum(totals.values())
    rows = [(key, counts[key], totals[key], 100 * totals[key] / whole if whole else 0.0) for key in counts]
    return sorted(rows, key=lambda r: (-round(r[2], 2), r[0]))
"""
        solution = f"""python3 - <<'PY'
import collections, csv, json
{core}
with open({out!r}, "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f)
    writer.writerow([{group!r}, "events", {total!r}, "share_pct"])
    for key, events, amount, share in shares({args}):
        writer.writerow([key, events, f"{{amount:.2f}}", f"{{share:.1f}}"])
PY"""
        tests = f"""
SRC, GROUP, VALUE, OUT = {args}, {out!r}
{core}

def read_out():
    with open(OUT, newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def test_{ctx.tag}_header_counts_and_totals():
    rows = read_out()
    assert rows[0] == [GROUP, "events", {total!r}, "share_pct"]
    want = shares(SRC, GROUP, VALUE)
    assert [r[0] for r in rows[1:]] == [key for key, *_ in want]
    for row, (key, events, amount, share) in zip(rows[1:], want):
        assert row[1] == str(events), row
        assert re.fullmatch(r"-?\\d+\\.\\d\\d", row[2]) and abs(float(row[2]) - amount) < 0.006, row
        assert re.fullmatch(r"-?\\d+\\.\\d", row[3]) and abs(float(row[3]) - share) < 0.051, row


def test_{ctx.tag}_shares_make_the_whole():
    shares_written = [float(r[3]) for r in read_out()[1:]]
    assert abs(sum(shares_written) - 100) <= 0.05 * len(shares_written) + 1e-9 or sum(shares_written) == 0
"""
        instruction = (
            f"Next, report how `{artifact.path}` (JSON Lines: one event object per line; skip blank lines) "
            f"divides up by `{group}`: write `{out}`, a comma-separated CSV file with the header "
            f"`{group},events,{total},share_pct` and one row per distinct `{group}` value holding the number "
            f"of events with that value, the sum of their `{value}` (exactly two decimals) and that sum as a "
            f"percentage of the `{value}` of all events (one decimal). Order the rows by the total, largest "
            f"first, ties broken by the `{group}` value in ascending code-point order."
        )
        produced = Artifact(
            path=out,
            kind=Kind.CSV,
            end_result=True,  # one row per category: a report, never a batch or a source to group again
            details={
                "header": [group, "events", total, "share_pct"],
                "numeric": ["events", total, "share_pct"],
                "categorical": [],
                "rows": None,
                "delimiter": ",",
            },
        )
        return Step(
            operator=self.name,
            consumes=artifact.path,
            solution=solution,
            tests=tests,
            imports=["collections", "csv", "json", "re"],
            instruction=instruction,
            produces=[produced],
        )
