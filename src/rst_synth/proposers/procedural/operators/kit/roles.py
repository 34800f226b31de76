"""The columns of a table artifact that fit an operator's arithmetic (roles decided in proposers/columns.py).

Every operator that sums, averages, ranks or groups columns picks them here, so the rule "sums of
additive measures only, statistics of measures, groups by what categorises, never a sum of identifiers,
row numbers, codes or flags, nothing of a constant column" lives in one place.
"""

from __future__ import annotations

import csv
import io

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.columns import Column, Use, column_roles, columns_from, fitting, is_summary

NUMERIC_AFFINITY = ("INTEGER", "REAL", "NUMERIC")


def csv_columns(artifact: Artifact) -> dict[str, Column]:
    """The roles of a CSV (or JSON records) artifact's columns: as discovery read them from the whole file,
    else from a sample that holds the whole file; empty when unknown (a step's own output this round)."""
    d = artifact.details
    known = columns_from(d.get("columns"))
    if known or artifact.kind is not Kind.CSV:
        return known
    sample, header = artifact.sample, d.get("header") or []
    if not sample or not header or len(sample) >= SAMPLE_CHARS or len(sample.encode("utf-8")) != artifact.size:
        return {}
    rows = [r for r in csv.reader(io.StringIO(sample, newline=""), delimiter=d.get("delimiter", ",")) if r]
    return column_roles(header, rows[1:]) if rows and rows[0] == header else {}


def sample_rows(artifact: Artifact) -> list[dict[str, str]]:
    """The data rows of a CSV artifact that its sample holds whole (a cut sample loses its last, partial line),
    for an operator that must look at values, not only roles."""
    d = artifact.details
    header, delim = d.get("header") or [], d.get("delimiter", ",")
    text = artifact.sample
    if len(text.encode("utf-8")) < artifact.size:
        text = text[: text.rfind("\n") + 1]
    rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delim) if r]
    if not header or not rows or rows[0] != header:
        return []
    return [dict(zip(header, r, strict=True)) for r in rows[1:] if len(r) == len(header)]


def csv_fitting(artifact: Artifact, use: Use) -> list[str]:
    """The columns of `artifact` that `use` means something for; a sum or a statistic also needs a number
    on every row (`details["numeric"]`, or `numeric_keys` of JSON records)."""
    names = fitting(csv_columns(artifact), use)
    if use in (Use.SUM, Use.STATS):
        numbers = set(artifact.details.get("numeric") or artifact.details.get("numeric_keys") or [])
        names = [n for n in names if n in numbers]
    return names


def is_data(artifact: Artifact) -> bool:
    """A table of records (something to load, feed or group), not a summary: a summary (one row per key with
    a measure beside it) is an end result, not a batch or a data source. False while the roles are unknown."""
    columns = csv_columns(artifact)
    return bool(columns) and not is_summary(columns)


def table_fitting(artifact: Artifact, table: str, use: Use) -> list[str]:
    """The columns of SQLite table `table` that `use` means something for (numbers stored as numbers for a
    sum or a statistic)."""
    columns = columns_from((artifact.details.get("columns") or {}).get(table))
    names = fitting(columns, use)
    if use in (Use.SUM, Use.STATS):
        types = (artifact.details.get("types") or {}).get(table, {})
        names = [n for n in names if affinity(types.get(n, "")) in NUMERIC_AFFINITY]
    return names


def affinity(declared: str) -> str:
    """SQLite's type affinity of a declared column type (INTEGER, TEXT, REAL, NUMERIC or BLOB)."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if any(k in t for k in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if not t or "BLOB" in t:
        return "BLOB"
    return "REAL" if any(k in t for k in ("REAL", "FLOA", "DOUB")) else "NUMERIC"
