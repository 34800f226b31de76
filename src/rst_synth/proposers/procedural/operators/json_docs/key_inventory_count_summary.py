"""Operators on JSON documents (an object or records): their key paths, counts per value, a numeric summary."""

from __future__ import annotations

import collections
import json
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.json_docs.shipped import key_inventory, numeric_summary, records_count_by
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import csv_fitting
from rst_synth.proposers.procedural.operators.kit.text import (
    MAX_TEXT_BYTES,
    complete_sample,
    data_artifact,
    text_artifact,
)
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render


class JsonOperator(Operator):
    kinds = (Kind.JSON,)
    tools = ("python3",)


@register
class JsonKeyInventory(JsonOperator):
    """Every key path of a JSON document, sorted."""

    name = "json-key-inventory"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return d.get("type") in ("object", "records") and bool(d.get("keys")) and artifact.size <= MAX_TEXT_BYTES

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        out = ctx.output_path(artifact, "key_paths", "txt")
        params = {"SRC": artifact.path, "OUT": out}
        solution = python_script(render(key_inventory, ["write_key_paths"], **params), "write_key_paths()")
        tests = render(key_inventory, ["test_sorted_key_paths"], tag=ctx.tag, **params)
        instruction = (
            f"Then list every key path of the JSON document `{artifact.path}` in `{out}`, one per line, each "
            "distinct path once, sorted in ascending code-point order (the byte order of `LC_ALL=C sort`). The path "
            "of a key of the top-level object is the key itself; a key of a nested object appends `.key` to the "
            "path of the value holding that object; elements of an array add `[]` to the array's path (so keys of "
            "objects in the top-level array are `[].key`, and keys of objects inside an array under `items` are "
            "`items[].key`). Only keys are listed, never array elements themselves."
        )
        text = complete_sample(artifact)
        known = None if text is None else "".join(p + "\n" for p in sorted(key_inventory.key_paths(json.loads(text))))
        produced = text_artifact(out, known, len(artifact.details["keys"]))
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])


def records_of(artifact: Artifact) -> list[dict[str, Any]] | None:
    text = complete_sample(artifact)
    return json.loads(text) if text is not None and artifact.details.get("type") == "records" else None


def _count_keys(artifact: Artifact) -> list[str]:
    """String keys that categorise and repeat: counting records per unique name gives 1 everywhere."""
    strings = set(artifact.details.get("string_keys") or [])
    return sorted(k for k in csv_fitting(artifact, Use.GROUP) if k in strings)


@register
class JsonRecordsCountBy(JsonOperator):
    """How many records carry each value of a string key, as CSV."""

    name = "json-records-count-by"
    purpose = Purpose.REPORT
    uses = (Use.GROUP,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return (
            d.get("type") == "records"
            and d.get("length") != 0
            and bool(_count_keys(artifact))
            and artifact.size <= MAX_TEXT_BYTES
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        key = ctx.rng.choice(_count_keys(artifact))
        out = ctx.output_path(artifact, f"count_by_{slug(key)}", "csv")
        params = {"SRC": artifact.path, "KEY": key, "OUT": out}
        solution = python_script(render(records_count_by, ["write_counts"], **params), "write_counts()")
        tests = render(records_count_by, ["test_counts_per_value"], tag=ctx.tag, **params)
        instruction = (
            f"Count the records of the JSON array `{artifact.path}` by their `{key}` value and write "
            f"`{out}`: a comma-separated CSV file with the header `value,count`, then one row per distinct `{key}` "
            "value with the number of records having it (a plain integer), ordered by count (largest first), ties "
            "broken by the value in ascending code-point order. Quote fields the standard CSV way where needed."
        )
        records = records_of(artifact)
        known = None
        if records is not None:
            counts = collections.Counter(r[key] for r in records)
            rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            if all(re.fullmatch(r"[^,\"\r\n]*", v) for v, _ in rows):
                known = "value,count\r\n" + "".join(f"{v},{n}\r\n" for v, n in rows)
        fallback = {
            "header": ["value", "count"],
            "numeric": ["count"],
            "categorical": [],
            "rows": None,
            "delimiter": ",",
        }
        produced = data_artifact(out, known, Kind.CSV, fallback)
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])


SUMMARY_KEYS = numeric_summary.SUMMARY_KEYS


@register
class JsonNumericSummary(JsonOperator):
    """Minimum, maximum, sum and mean of a numeric key over JSON records."""

    name = "json-numeric-summary"
    purpose = Purpose.REPORT
    uses = (Use.SUM,)
    final = True

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        d = artifact.details
        return (
            d.get("type") == "records"
            and d.get("length") != 0
            and bool(csv_fitting(artifact, Use.SUM))  # it writes a sum: an additive measure that varies
            and artifact.size <= MAX_TEXT_BYTES
            and not re.search(r"\b(NaN|Infinity)\b", artifact.sample)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        key = ctx.rng.choice(sorted(csv_fitting(artifact, Use.SUM)))
        out = ctx.output_path(artifact, f"{slug(key)}_summary", "json")
        params = {"SRC": artifact.path, "KEY": key, "OUT": out}
        solution = python_script(render(numeric_summary, ["write_summary"], **params), "write_summary()")
        tests = render(numeric_summary, ["test_summary_of_key"], tag=ctx.tag, **params)
        instruction = (
            f"Then summarise the numeric `{key}` field over all records of the JSON array `{artifact.path}` and "
            f"write `{out}`: a JSON object with exactly the keys `count` (the number of records), `min`, `max`, "
            f"`sum` and `mean` (the sum divided by the count), each of the last four a JSON number rounded to 3 "
            "decimal places."
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={"type": "object", "keys": SUMMARY_KEYS, "numeric_keys": SUMMARY_KEYS, "string_keys": []},
        )
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])
