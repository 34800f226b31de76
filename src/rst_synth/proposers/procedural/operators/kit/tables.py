"""What the table operators of several domains read off a CSV or SQLite artifact: plain column names, the whole
body when the sample holds it, the tables a step may use."""

from __future__ import annotations

import csv
import io
import re

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact

NON_FINITE = re.compile(r"(?i)(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])")


def plain_names(names: list[str]) -> bool:
    """Column names usable as quoted SQL identifiers and as distinct dict keys."""
    return (
        bool(names)
        and all(n.strip() and '"' not in n and "\n" not in n for n in names)
        and len({n.lower() for n in names}) == len(names)
    )


def csv_ok(artifact: Artifact) -> bool:
    d = artifact.details
    return d.get("delimiter") in (",", "\t") and plain_names(d.get("header") or [])


def full_body(artifact: Artifact) -> list[list[str]] | None:
    """The CSV's data rows when the sample holds the whole file, else None."""
    d, sample = artifact.details, artifact.sample
    if not sample or len(sample) >= SAMPLE_CHARS:
        return None
    rows = [r for r in csv.reader(io.StringIO(sample), delimiter=d.get("delimiter", ","))][1:]
    body = [r for r in rows if r]
    return body if len(body) == d.get("rows") else None


def sqlite_tables(artifact: Artifact) -> dict[str, list[str]]:
    """Tables (non-empty or of unknown size) whose table and column names are plain."""
    d = artifact.details
    return {
        t: cols
        for t, cols in (d.get("tables") or {}).items()
        if '"' not in t and plain_names(cols) and (d.get("rows") or {}).get(t) != 0
    }
