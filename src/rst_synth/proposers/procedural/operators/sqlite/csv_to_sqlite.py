"""A CSV loaded into a SQLite table with typed columns (the SQLite table operators build on it)."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.names import delimiter_name, slug
from rst_synth.proposers.procedural.operators.kit.roles import affinity, csv_columns, is_data
from rst_synth.proposers.procedural.operators.kit.tables import NON_FINITE, csv_ok, full_body
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git
from rst_synth.proposers.procedural.operators.sqlite.shipped import csv_to_sqlite
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

INT_TEXT = re.compile(r"[-+]?\d{1,18}")


def affinity_of(declared: str) -> str:
    return affinity(declared)


@register
class CsvToSqlite(Operator):
    """Load a CSV into a new SQLite database with typed columns."""

    name = "csv-to-sqlite"
    purpose = Purpose.PREPARE
    converts = True  # its table exported back to CSV would be the CSV again
    kinds = (Kind.CSV,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            outside_git(artifact, discovery)
            and "sqlite3" in discovery.python_modules
            and csv_ok(artifact)
            and not NON_FINITE.search(artifact.sample)
            # A column named like SQLite's row id hides it, and "in file order (ascending rowid)" breaks.
            and not {h.lower() for h in artifact.details["header"]} & {"rowid", "oid", "_rowid_"}
            and is_data(artifact)  # a summary loaded into a database is no new data source
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        header, body = d["header"], full_body(artifact)
        table = slug(artifact.stem)
        table = f"t_{table}" if table[0].isdigit() or table.startswith("sqlite") else table
        types = {}
        for i, h in enumerate(header):
            if h not in d.get("numeric", []):
                types[h] = "TEXT"
            elif body is not None and all(INT_TEXT.fullmatch(r[i].strip()) for r in body):
                types[h] = "INTEGER"
            else:
                types[h] = "REAL"
        out = ctx.output_path(artifact, "db", "sqlite")
        params = {"SRC": artifact.path, "DELIM": d["delimiter"], "TABLE": table, "TYPES": types, "OUT": out}
        solution = python_script(render(csv_to_sqlite, ["load_table"], **params), "load_table()")
        tests = render(csv_to_sqlite, ["test_csv_loaded_into_sqlite"], tag=ctx.tag, **params)
        columns = ", ".join(f"`{h}` {types[h]}" for h in header)
        instruction = (
            f"Load `{artifact.path}` ({delimiter_name(d['delimiter'])}-separated, with a header row) into a new "
            f"SQLite database file `{out}` with one table named `{table}` whose columns are the CSV's columns in "
            f"the same order, named as in the header, with exactly these declared types: {columns}. Store one "
            "table row per CSV data row, in file order (ascending rowid); INTEGER and REAL values are stored as "
            "numbers, TEXT values as the exact strings from the file."
        )
        produced = Artifact(
            path=out,
            kind=Kind.SQLITE,
            details={
                "tables": {table: list(header)},
                "types": {table: types},
                "rows": {table: d.get("rows")},
                "views": [],
                "not_null": {table: list(header)},
                # the same rows as the CSV: its columns keep their roles
                "columns": {table: {h: c.to_json() for h, c in csv_columns(artifact).items()}},
            },
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
