"""Indexes chosen for a planted set of queries: at most two new indexes on the largest table of a SQLite
database so that no query scans the table or sorts in a temporary B-tree, results unchanged; written as a
SQL file and applied to a new copy of the database."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Role, columns_from
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.tables import sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import plant, planted_dir, stem_of
from rst_synth.proposers.procedural.operators.sqlite.shipped import database_copy, index_plan
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

MIN_ROWS = 20
MAX_INDEXES = 2
EQUALITY = frozenset({Role.CATEGORY, Role.CODE, Role.FLAG, Role.IDENTIFIER})
"""Roles of the columns a query looks rows up by."""
RANGE = frozenset({Role.ADDITIVE, Role.INTENSIVE, Role.CHANGE, Role.TIME})
"""Roles of the columns a query takes a range of, and sorts by."""
TESTS = [
    "test_no_query_scans_or_sorts",
    "test_only_indexes_added_results_unchanged",
    "test_script_rebuilds_the_indexes",
]


def index_choices(artifact: Artifact) -> list[tuple[str, str, str, str]]:
    """(table, x, y, z) of the largest tables: x and z columns to look rows up by, y a measure or a time to take
    a range of; none of them the `id` (SQLite's row id, already a key) and none constant."""
    rows = artifact.details.get("rows") or {}
    sized = [(t, c) for t, c in sqlite_tables(artifact).items() if isinstance(rows.get(t), int) and rows[t] >= MIN_ROWS]
    if not sized:
        return []
    largest = max(rows[t] for t, _ in sized)
    found = []
    for table, names in sorted(sized):
        if rows[table] != largest:
            continue
        roles = columns_from((artifact.details.get("columns") or {}).get(table))
        usable = {n: c for n, c in roles.items() if n in names and n.lower() not in ("id", "rowid") and not c.constant}
        equal = [n for n in names if n in usable and usable[n].role in EQUALITY]
        ranged = [n for n in names if n in usable and usable[n].role in RANGE]
        found += [(table, x, y, z) for x in equal for z in equal if x != z for y in ranged]
    return found


def queries(table: str, x: str, y: str, z: str) -> list[str]:
    return [
        f'SELECT * FROM "{table}" WHERE "{x}" = ?',
        f'SELECT * FROM "{table}" WHERE "{x}" = ? AND "{y}" >= ? ORDER BY "{y}"',
        f'SELECT "{x}", "{y}" FROM "{table}" WHERE "{z}" = ?',
        f'SELECT COUNT(*) FROM "{table}" WHERE "{z}" = ? AND "{x}" = ?',
    ]


@register
class SqliteIndexPlan(Operator):
    """Indexes for a planted query set, so no query scans the largest table or sorts, on a new copy."""

    name = "sqlite-index-plan"
    purpose = Purpose.REPORT
    final = True  # the same data with indexes: a step on the copy would repeat a step on the original
    kinds = (Kind.SQLITE,)
    tools = ("python3",)
    weight = 3.0

    def input_of(self, artifact: Artifact) -> str:
        """The table it would index: a copy of the database with that table unchanged is the same input."""
        tables = artifact.details.get("tables") or {}
        return "index:" + ";".join(sorted({f"{t}({','.join(tables.get(t, []))})" for t, *_ in index_choices(artifact)}))

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            "sqlite3" in discovery.python_modules
            and places_ok(artifact, discovery, "incoming")
            and bool(index_choices(artifact))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        table, x, y, z = ctx.rng.choice(index_choices(artifact))
        planned = queries(table, x, y, z)
        planted = f"{planted_dir(ctx)}/{stem_of(artifact)}_queries.sql"
        script = ctx.output_path(artifact, "indexes", "sql")
        out = ctx.output_path(artifact, "indexed", "db")
        listing = "".join(f"-- query {n}\n{query};\n" for n, query in enumerate(planned, 1))
        statements = [
            f'CREATE INDEX "{table}_{x}_{y}_idx" ON "{table}" ("{x}", "{y}");',
            f'CREATE INDEX "{table}_{z}_{x}_idx" ON "{table}" ("{z}", "{x}");',
        ]
        params: dict[str, object] = {"SRC": artifact.path, "OUT": out, "SCRIPT": script, "TABLE": table, "X": x, "Y": y}
        params |= {"Z": z, "QUERIES": planned, "MAX_INDEXES": MAX_INDEXES}
        copy = render(database_copy, ["copy_database"])  # a definition of its own module, shipped first
        apply = render(index_plan, ["apply_indexes"], SRC=artifact.path, OUT=out, SCRIPT=script)
        apply = python_script(copy + "\n\n" + apply, "apply_indexes()")
        solution = f"cat > {q(script)} <<'SQL'\n{chr(10).join(statements)}\nSQL\n{apply}"
        tests = copy + "\n\n" + render(index_plan, TESTS, tag=ctx.tag, **params)
        instruction = (
            f"The queries in `{planted}` (one per `-- query N` comment, `?` for the parameters) are to run "
            f"often on `{artifact.path}`, and table `{table}` will grow. Choose at most {MAX_INDEXES} new "
            f"indexes on `{table}` so that, for any parameter values, no query's `EXPLAIN QUERY PLAN` has a step "
            f"that scans `{table}` in full (a `SCAN {table}` step, with or without an index) or uses a temporary "
            f"B-tree (`USE TEMP B-TREE`). Write their `CREATE INDEX` statements, and nothing else, to `{script}`, "
            f"and apply them to a new copy of the database, `{out}`; leave `{artifact.path}` unchanged. In the "
            "copy nothing else changes: the same rows, the same schema plus the new indexes (no `ANALYZE` "
            "statistics tables), so every query returns what it returns on the original."
        )
        produced = [
            Artifact(path=out, kind=Kind.SQLITE, details=dict(artifact.details)),
            Artifact(path=script, kind=Kind.TEXT),
        ]
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(planted, listing),
            produces=produced,
        )
