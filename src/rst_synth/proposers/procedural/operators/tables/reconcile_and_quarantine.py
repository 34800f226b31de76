"""Feeds that arrive next to a result: reconcile it with a partner's export under stated conflict rules,
and quarantine the malformed records of a raw feed with a reject report."""

from __future__ import annotations

import csv
import io
import json
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    CsvShape,
    csv_pairs,
    csv_shape,
    inside_git,
    known_rows,
    plant,
    planted_dir,
    stem_of,
)
from rst_synth.proposers.procedural.operators.tables.shipped import quarantine_malformed, reconcile_sources
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

DATES = ("2024-11-30", "2025-01-15", "2025-02-28", "2025-03-01", "2025-04-10")


def _unique_keys(artifact: Artifact) -> list[tuple[str, str]]:
    """(key, value) pairs for a reconciliation: complete known rows, a key column unique per row (no key twice
    once trimmed and case-folded) and a measure beside it (a summary's totals, a price list)."""
    found = known_rows(artifact)
    if found is None or not found[1]:
        return []
    header, body = found[0][0], found[0][1:]
    pairs = []
    for group, value in csv_pairs(artifact, key=Use.KEY, value=Use.STATS):
        keys = [row[header.index(group)].strip().casefold() for row in body]
        if all(keys) and len(set(keys)) == len(keys):
            pairs.append((group, value))
    return pairs


def _partner_feed(shape: CsvShape, ctx: StepContext, cutoff: str) -> list[dict[str, object]]:
    """The partner's records, in the units of our column: whole numbers where ours are (`unit_cost_cents`), so
    that a difference is a changed figure, never cents set against dollars."""
    rng, k, v = ctx.rng, shape.header.index(shape.group), shape.header.index(shape.value)
    whole = all(re.fullmatch(r"-?\d+", row[v].strip()) for row in shape.rows)

    def figure(hundredths: int) -> str:
        return str(hundredths // 100) if whole else f"{hundredths / 100:.2f}"

    feed: list[dict[str, object]] = []
    for row in shape.rows:
        choice = rng.random()
        key = row[k] if rng.random() < 0.6 else f"  {row[k].upper()} "
        if choice < 0.25:
            same = f" {row[v]} " if whole else row[v] + ("0" if "." in row[v] else ".00")
            feed.append({"key": key, "value": same, "as_of": rng.choice(DATES)})
        elif choice < 0.6:
            step = rng.randint(1, 900)
            changed = str(int(row[v]) + step) if whole else f"{float(row[v]) + step / 100:.2f}"
            feed.append({"key": key, "value": changed, "as_of": rng.choice(DATES)})
        elif choice < 0.7:
            feed.append({"key": key, "value": rng.choice([None, "n/a", ""]), "as_of": cutoff})
    scale = 100 if whole else 1  # `figure` takes hundredths of our unit
    for i in range(rng.randint(2, 4)):
        new = figure(rng.randint(-500, 9000) * scale)
        feed.append({"key": f"new-{shape.group}-{i}", "value": new, "as_of": cutoff})
    if feed:
        first = dict(feed[0])
        feed.append({**first, "value": figure(rng.randint(1, 9000) * scale), "as_of": "2025-06-30"})
        feed.append({**first, "value": figure(100), "as_of": "2023-01-01"})
    rng.shuffle(feed)
    return feed


@register
class CsvReconcileSources(Operator):
    """Reconcile the artifact with a partner's JSON export under stated conflict rules."""

    name = "csv-reconcile-sources"
    purpose = Purpose.RECONCILE
    uses = (Use.KEY, Use.STATS)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(_unique_keys(artifact)) and not inside_git(artifact.path, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape = csv_shape(artifact, ctx, _unique_keys(artifact))
        group, value = shape.group, shape.value
        cutoff = ctx.rng.choice(DATES[1:4])
        partner = f"{planted_dir(ctx)}/{stem_of(artifact)}_partner.json"
        feed = json.dumps(_partner_feed(shape, ctx, cutoff), indent=1, ensure_ascii=False) + "\n"
        out = ctx.output_path(artifact, "reconciled", "csv")
        params = {"SRC": artifact.path, "PARTNER": partner, "KEY": group, "VALUE": value, "CUTOFF": cutoff, "OUT": out}
        solution = python_script(render(reconcile_sources, ["main"], **params), "main()")
        tests = render(reconcile_sources, ["test_reconciled_by_the_rules"], tag=ctx.tag, **params)
        instruction = (
            f"A partner sent its own figures for the same `{group}` keys: `{partner}`, a JSON array of "
            "objects with `key` (text), `value` (a decimal number as a string, or something else) and `as_of` "
            f"(a `YYYY-MM-DD` date). Reconcile it with `{artifact.path}` (column `{group}` is our key, "
            f"`{value}` our value) into `{out}`: a CSV with the header `{group},{value},source` and one row per "
            "key found in either source, where keys match after removing surrounding whitespace and case-folding "
            "(Python's `str.casefold`). Partner records whose `value` is not a string holding a decimal number "
            "(optional `-`, digits, optionally `.` and digits, surrounding whitespace allowed) are ignored; when "
            "the partner has several records for a key, the one with the latest `as_of` counts (on equal dates the "
            "later one in the array). A key only we have keeps our value, source `ours`; a key only the partner "
            "has takes its key and value with surrounding whitespace removed, source `partner`. For a key in both: "
            f"when the values are equal as decimal numbers (`5` equals `5.00`) keep our value, source `both`; when "
            f"they differ, the partner's value wins if its `as_of` is on or after `{cutoff}` (source `partner`), "
            "otherwise ours stays (source `ours`). A key we have is written as in our file; values are written "
            "exactly as in the winning source (partner values with surrounding whitespace removed). Order the rows "
            "by the case-folded key in code-point order; lines end with `\\n`."
        )
        produced = Artifact(
            path=out,
            kind=Kind.CSV,
            end_result=True,  # the reconciled figures per key: a summary, never a feed format or a batch
            details={
                "header": [group, value, "source"],
                "numeric": [value],
                "categorical": ["source"],
                "rows": None,
                "delimiter": ",",
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(partner, feed),
            produces=[produced],
        )


def _raw_feed(shape: CsvShape, ctx: StepContext) -> str:
    rng, k, v = ctx.rng, shape.header.index(shape.group), shape.header.index(shape.value)
    records: list[list[str]] = []
    for i in range(rng.randint(8, 14)):
        row = list(rng.choice(shape.rows))
        row[v] = f"{rng.randint(-900, 90000) / 100:.2f}"
        if i % 4 == 0:
            row[k] = f"{row[k]}, batch {i}"
        records.append(row)
    records += [list(rng.choice(shape.rows)) for _ in range(2)]  # copies of the result: duplicates
    records.append(list(records[0]))  # a record again: a duplicate of an accepted one
    broken = [list(rng.choice(shape.rows)) for _ in range(6)]
    broken[0] = broken[0][:-1]
    broken[1] = [*broken[1], "extra"]
    broken[2][k] = "  "
    for row, bad in zip(broken[3:], ("n/a", "1,5", "1e3"), strict=True):
        row[v] = bad
    records += broken
    rng.shuffle(records)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows([shape.header, *records[:5], [], *records[5:]])
    return buffer.getvalue()


@register
class CsvQuarantineMalformed(Operator):
    """Split a raw feed in the artifact's format into accepted records and a reject report."""

    name = "csv-quarantine-malformed"
    purpose = Purpose.RECONCILE
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(csv_pairs(artifact)) and not inside_git(artifact.path, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        shape = csv_shape(artifact, ctx)
        feed = f"{planted_dir(ctx)}/{stem_of(artifact)}_raw.csv"
        accepted = ctx.output_path(artifact, "accepted", "csv")
        rejects = ctx.output_path(artifact, "rejects", "csv")
        params = {
            "SRC": artifact.path,
            "FEED": feed,
            "KEY": shape.group,
            "VALUE": shape.value,
            "ACCEPTED": accepted,
            "REJECTS": rejects,
        }
        solution = python_script(render(quarantine_malformed, ["main"], **params), "main()")
        tests = render(quarantine_malformed, ["test_accepted_records", "test_reject_report"], tag=ctx.tag, **params)
        instruction = (
            f"A raw feed in the format of `{artifact.path}` arrived as `{feed}` (UTF-8, RFC 4180 quoting with "
            "quoted fields that hold commas, CRLF line endings, a header row; blank lines are skipped and not "
            "counted). Check its records, numbered from 1 after the header, in order, and give each rejected one "
            "the first reason that applies: `wrong_field_count` (not as many fields as the header), `missing_key` "
            f"(`{shape.group}` empty or only whitespace), `bad_number` (`{shape.value}`, with surrounding whitespace "
            "removed, is not an optional `-`, digits, and optionally `.` and digits), `duplicate` (field for field "
            f"equal to a data row of `{artifact.path}` or to a record of the feed accepted earlier). Write the "
            f"accepted records, unchanged and in feed order, under the header of `{artifact.path}` to `{accepted}`, "
            f"and the rejects to `{rejects}` with the header `record,reason` (record number and reason, in feed "
            "order); both comma-separated with lines ending in `\\n`."
        )
        produced = [
            Artifact(
                path=accepted,
                kind=Kind.CSV,
                # the feed's rows, not the artifact's: their roles are read from the file next round
                details={**{k: v for k, v in artifact.details.items() if k != "columns"}, "rows": None},
                sample="",
            ),
            Artifact(
                path=rejects,
                kind=Kind.CSV,
                end_result=True,  # row numbers and reasons: read by people, never a batch or a data source
                details={
                    "header": ["record", "reason"],
                    "numeric": ["record"],
                    "categorical": ["reason"],
                    "rows": None,
                    "delimiter": ",",
                },
            ),
        ]
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(feed, _raw_feed(shape, ctx)),
            produces=produced,
        )
