"""Changes that arrive for a SQLite database: a delta feed merged under stated conflict rules (events out of
order, in several UTC offsets, stale ones, deletes racing updates) into a new database that holds the
merged table alone: a copy of the other tables would only invite the same report on the same rows again."""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Role, columns_from
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.roles import affinity
from rst_synth.proposers.procedural.operators.kit.tables import sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import plant, planted_dir, stem_of
from rst_synth.proposers.procedural.operators.sqlite.delta_feed import FeedTable, feed_events, feed_text
from rst_synth.proposers.procedural.operators.sqlite.shipped import delta_merge
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

MIN_ROWS = 6
"""A feed needs a dozen events on distinct rows of the table, two to a row at most."""


def has_lookup_triggers(artifact: Artifact) -> bool:
    """Whether the database carries `sqlite-migration-tool`'s lookup tables (`<column>_ref (id, name)`), whose
    triggers rewrite rows on every insert and update: a merge into it would not be the merge the rules state."""
    tables = artifact.details.get("tables") or {}
    return any(name.endswith("_ref") and columns == ["id", "name"] for name, columns in tables.items())


def feed_tables(artifact: Artifact) -> list[FeedTable]:
    """Tables keyed by an INTEGER column named `id` with enough rows for a feed, and another column to change."""
    types, rows = artifact.details.get("types") or {}, artifact.details.get("rows") or {}
    found = []
    for name, columns in sorted(sqlite_tables(artifact).items()):
        keys = [c for c in columns if c.lower() == "id"]
        count = rows.get(name)
        if len(keys) != 1 or affinity(types.get(name, {}).get(keys[0], "")) != "INTEGER" or len(columns) < 2:
            continue
        if isinstance(count, int) and count >= MIN_ROWS:
            roles = columns_from((artifact.details.get("columns") or {}).get(name))
            flags = frozenset(c for c, column in roles.items() if column.role is Role.FLAG)
            declared = dict(types.get(name, {}))
            found.append(FeedTable(name=name, columns=list(columns), types=declared, rows=count, flags=flags))
    return found


@register
class SqliteDeltaMerge(Operator):
    """A delta feed of inserts, partial updates and deletes, merged into a new database of the table alone."""

    name = "sqlite-delta-merge"
    purpose = Purpose.PREPARE
    kinds = (Kind.SQLITE,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            "sqlite3" in discovery.python_modules
            and places_ok(artifact, discovery, "incoming")
            and bool(feed_tables(artifact))
            and not has_lookup_triggers(artifact)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        table = ctx.rng.choice(feed_tables(artifact))
        start = datetime.datetime(2026, 3, ctx.rng.randint(2, 26), ctx.rng.randint(0, 9), tzinfo=datetime.UTC)
        records, as_of = feed_events(table, ctx.rng, start)
        feed = f"{planted_dir(ctx)}/{stem_of(artifact)}_{table.name}_changes.jsonl"
        out = ctx.output_path(artifact, "merged", "db")
        params = {"SRC": artifact.path, "FEED": feed, "TABLE": table.name, "KEY": table.key, "AS_OF": as_of, "OUT": out}
        solution = python_script(render(delta_merge, ["merge_feed"], **params), "merge_feed()")
        tests = render(
            delta_merge, ["test_feed_merged_by_the_rules", "test_only_the_table_with_its_schema"], tag=ctx.tag, **params
        )
        instruction = (
            f"The changes made to table `{table.name}` of `{artifact.path}` since its snapshot arrived as a "
            f"delta feed, `{feed}`: JSON Lines, one event per line, each an object with `seq` (a unique integer), "
            "`ts` (an ISO 8601 timestamp with a UTC offset, `Z` or `+HH:MM`/`-HH:MM`), `op` (`upsert` or `delete`), "
            f"`id` (the row's `{table.key}`) and, for an upsert, `data` (an object of column name to new value, "
            "some of the row's columns or all of them). The lines are not in time order. Write a new SQLite "
            f"database, `{out}`, holding only table `{table.name}` with its schema as in `{artifact.path}` (its "
            "`CREATE TABLE` statement and its indexes, nothing else) and, as its rows, the result of the merge; "
            f"leave `{artifact.path}` unchanged. The rules: the database already holds every change up to and "
            f"including `{as_of}`, so an event at or before that instant is ignored; the other events apply one "
            "by one in the order of their instants (compare instants, not the text: offsets differ), on equal "
            "instants the smaller `seq` first. A `delete` removes the rows with that id (an id that is not "
            "there: nothing happens). An `upsert` of an id that is there sets the columns in `data` on its rows "
            "and leaves the others; an `upsert` of an id that is not there (never was, or deleted before) "
            f"inserts a row only when `data` gives every column of `{table.name}` but `{table.key}`, and is "
            "otherwise ignored. Values are stored as the JSON gives them (integers as integers, numbers with a "
            "fraction as reals, strings as "
            "text)."
        )
        # the merged table alone; its rows and its columns' roles are known once discovery reads the file
        details = {k: {table.name: (artifact.details.get(k) or {}).get(table.name)} for k in ("tables", "types")}
        produced = Artifact(path=out, kind=Kind.SQLITE, details={**details, "rows": {table.name: None}, "views": []})
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(feed, feed_text(records)),
            produces=[produced],
        )
