"""A versioned migration of a SQLite database: a category column moves into a lookup table in three
versions counted by `PRAGMA user_version`, written as a tool that is idempotent, resumes from any earlier
version, keeps the data, and refuses a database newer than itself; applied to a new copy of the database."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Role, Use, columns_from
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.roles import affinity, table_fitting
from rst_synth.proposers.procedural.operators.kit.tables import sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import tool_path
from rst_synth.proposers.procedural.operators.sqlite.delta_merge import has_lookup_triggers
from rst_synth.proposers.procedural.operators.sqlite.migration import Names
from rst_synth.proposers.procedural.operators.sqlite.shipped import database_copy
from rst_synth.proposers.procedural.operators.sqlite.shipped import migration_tool as shipped
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render, write_tool


def migration_choices(artifact: Artifact) -> list[Names]:
    """(table, column) pairs where the column is text that categorises the table's rows (columns.py: it fits
    a group), and the lookup table and column the migration adds are free names."""
    details = artifact.details
    types = details.get("types") or {}
    taken = {n.lower() for n in [*(details.get("tables") or {}), *(details.get("views") or [])]}
    found = []
    for table, names in sorted(sqlite_tables(artifact).items()):
        roles = columns_from((details.get("columns") or {}).get(table))
        for column in table_fitting(artifact, table, Use.GROUP):
            if roles[column].role is not Role.CATEGORY or affinity(types.get(table, {}).get(column, "")) != "TEXT":
                continue
            base = slug(column)
            pair = Names(
                table=table,
                column=column,
                ref=f"{base}_ref",
                fk=f"{base}_id",
                index=f"{slug(table)}_{base}_id_idx",
                on_insert=f"{slug(table)}_{base}_on_insert",
                on_update=f"{slug(table)}_{base}_on_update",
            )
            if pair.ref not in taken and pair.fk not in {n.lower() for n in names}:
                found.append(pair)
    return found


@register
class SqliteMigrationTool(Operator):
    """A versioned, idempotent migration tool that normalises a category column, run on a new copy."""

    name = "sqlite-migration-tool"
    purpose = Purpose.TOOL
    final = True  # the migrated copy keeps the other tables as they were: reports on it would repeat reports
    kinds = (Kind.SQLITE,)
    tools = ("python3",)
    weight = 3.0

    def input_of(self, artifact: Artifact) -> str:
        """The columns it would migrate: a copy of the database (a merge of another table) is the same input."""
        return "migrate:" + ",".join(sorted(f"{n.table}.{n.column}" for n in migration_choices(artifact)))

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            "sqlite3" in discovery.python_modules
            and places_ok(artifact, discovery, "bin")
            and not has_lookup_triggers(artifact)
            and bool(migration_choices(artifact))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        names = ctx.rng.choice(migration_choices(artifact))
        tool = tool_path(ctx, artifact, "migrate")
        out = ctx.output_path(artifact, "v3", "db")
        params = {"SRC": artifact.path, "OUT": out, "TOOL": tool, **names.params()}
        code = render(shipped, ["main"], **params)
        copy = python_script(render(database_copy, ["copy_database"]), f"copy_database({artifact.path!r}, {out!r})")
        write = write_tool(tool, code, "sys.exit(main(sys.argv))")
        solution = f"mkdir -p {q(tool.rsplit('/', 1)[0])}\n{write}\n{copy}\n{q(tool)} {q(out)}"
        names_of_tests = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, names_of_tests, tag=ctx.tag, **params)
        t, g, ref, fk = names.table, names.column, names.ref, names.fk
        instruction = (
            f"The `{g}` column of table `{t}` in `{artifact.path}` is to move into a lookup table. Write a "
            f"migration tool `{tool}` (an executable file with a `#!` line) run as `{tool} DATABASE`. It reads "
            "the database's `PRAGMA user_version` (0 for a database never migrated) and applies, in order, each "
            "of these versions above it, each in one transaction that also sets `user_version` to that version "
            "number (a version that fails leaves the database at the version before it), printing each applied "
            f"version's number on a line of its own. Version 1: create table `{ref}` with columns `id INTEGER "
            f"PRIMARY KEY` and `name TEXT NOT NULL UNIQUE`, holding every distinct non-NULL `{g}` value of "
            f"`{t}`. Version 2: add to `{t}` the column `{fk} INTEGER REFERENCES {ref}(id)` (the last column), "
            f"add to `{ref}` each distinct non-NULL `{g}` value it lacks, set `{fk}` on every row to the `id` of "
            f"its `{g}` value (NULL where `{g}` is NULL), and create the index `{names.index}` on `{t}({fk})`. "
            f"Version 3: create the triggers `{names.on_insert}` (after an INSERT into `{t}`) and "
            f"`{names.on_update}` (after an UPDATE of `{g}`) that keep the row's `{fk}` equal to the `id` of its "
            f"`{g}` value, first adding a `{g}` value missing from `{ref}` (NULL `{g}`: `{fk}` NULL, nothing "
            f"added), whatever `{fk}` the statement itself wrote. Whenever values are added to `{ref}`, they "
            "get the ids after the largest id already there (1 for an empty table), in code-point order of "
            "the values; ids already there never change. Existing rows and every other table, view, index "
            "and trigger stay as they are. A database already at version 3 is left unchanged, prints nothing "
            "and exits 0; one whose `user_version` is above 3 is left unchanged and the tool exits with "
            "status 3; a path that is missing or not an SQLite database exits with status 2 (messages go to "
            f"standard error). Then make a copy of `{artifact.path}` as `{out}` (leave the original unchanged) "
            "and migrate the copy with the tool."
        )
        details = dict(artifact.details)
        tables = {**(details.get("tables") or {}), ref: ["id", "name"]}
        tables[t] = [*tables.get(t, []), fk]
        produced = Artifact(path=out, kind=Kind.SQLITE, details={**details, "tables": tables, "columns": {}})
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
