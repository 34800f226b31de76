"""The SQLite operators (delta merge, migration tool, index plan): where they apply, determinism and the
paths their instructions name, their generated tests run here against the reference solution and against
subtly wrong ones, and one child per operator accepted against a parent on the real engine."""

from __future__ import annotations

import datetime
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.sqlite import delta_feed, index_plan
from rst_synth.proposers.procedural.operators.sqlite.delta_merge import feed_tables
from rst_synth.proposers.procedural.operators.sqlite.migration_tool import migration_choices
from rst_synth.proposers.procedural.operators.sqlite.shipped import delta_merge as shipped_merge
from tests.proposers.local_steps import failed, outcomes
from tests.support.operators import assert_accepted, extend_with, parent_task

MAKE_DB = """
import random, sqlite3, sys
rng = random.Random(7)
db = sqlite3.connect(sys.argv[1])
db.executescript('''
CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, category TEXT NOT NULL,
                       unit_cost_cents INTEGER NOT NULL, discontinued INTEGER NOT NULL DEFAULT 0);
CREATE TABLE stock (product_id INTEGER NOT NULL REFERENCES products(id), warehouse_id INTEGER NOT NULL,
                    quantity INTEGER NOT NULL, PRIMARY KEY (product_id, warehouse_id));
CREATE VIEW cheap AS SELECT sku FROM products WHERE unit_cost_cents < 500;
''')
categories = ["cables", "fasteners", "lighting", "tools", "Zubehör"]
for pid in range(1, 31):
    db.execute("INSERT INTO products VALUES (?, ?, ?, ?, ?)",
               (pid, f"SKU-{pid:04d}", categories[pid * 7 % 5], rng.randint(35, 8999), int(rng.random() < 0.2)))
    for wid in (1, 2, 3):
        if rng.random() < 0.8:
            db.execute("INSERT INTO stock VALUES (?, ?, ?)", (pid, wid, rng.randint(0, 400)))
db.commit()
"""
PARENT_SOLVE = f"mkdir -p /app/data\npython3 - /app/data/shop.db <<'PY'\n{MAKE_DB}PY\n"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "app" / "data" / "shop.db"
    path.parent.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", MAKE_DB, str(path)], check=True)
    return path


def with_tables(art: Artifact, **extra: list[str]) -> Artifact:
    return art.model_copy(update={"details": {**art.details, "tables": {**art.details["tables"], **extra}}})


def artifact(path: Path) -> Artifact:
    content = path.read_bytes()
    kind, details, sample = classify(str(path), content)
    return Artifact(path=str(path), kind=kind, size=len(content), details=details, sample=sample)


def discovery(*artifacts: Artifact, workdir: str = "/app") -> Discovery:
    return Discovery(workdir=workdir, artifacts=list(artifacts), tools=["python3"], python_modules=["sqlite3"])


def build(name: str, art: Artifact, seed: int = 3, workdir: str = "/app") -> Step:
    found = discovery(art, workdir=workdir)
    return OPERATORS[name].step(art, StepContext(discovery=found, rng=random.Random(seed), taken_paths=found.paths()))


DB_PATH = "/app/data/shop.db"


def local(shop: Path) -> Artifact:
    """The database as discovery describes it at the path the parent leaves it (/app/data/shop.db)."""
    content = shop.read_bytes()
    kind, details, sample = classify(DB_PATH, content)
    return Artifact(path=DB_PATH, kind=kind, size=len(content), details=details, sample=sample)


def run(step: Step, shop: Path, root: Path, solution: str | None = None) -> dict[str, str]:
    return outcomes(step, root, solution=solution, files={DB_PATH: shop.read_bytes()})


# -- sqlite-delta-merge ---------------------------------------------------------------------------------


def test_delta_merge_applies_to_tables_keyed_by_id(shop: Path) -> None:
    op, art = OPERATORS["sqlite-delta-merge"], artifact(shop)
    assert op.can_use(art, discovery(art)) and op.fit(art, discovery(art)) == 6.0
    assert [t.name for t in feed_tables(art)] == ["products"]  # stock has no id column
    no_sqlite = Discovery(workdir="/app", artifacts=[art], tools=["python3"], python_modules=[])
    assert not op.can_use(art, no_sqlite)
    migrated = art.model_copy(
        update={"details": {**art.details, "tables": {**art.details["tables"], "x_ref": ["id", "name"]}}}
    )
    assert not op.can_use(migrated, discovery(migrated))  # triggers would rewrite the merged rows
    small = art.model_copy(update={"details": {**art.details, "rows": {"products": 4, "stock": 9}}})
    assert not op.can_use(small, discovery(small))
    repo = Artifact(path=str(shop.parent), kind=art.kind.GIT)
    assert not op.can_use(art, discovery(art, repo))


def test_delta_merge_build_is_deterministic_and_names_its_paths(shop: Path) -> None:
    art = artifact(shop)
    step = build("sqlite-delta-merge", art)
    assert step == build("sqlite-delta-merge", art)
    feed = re.search(r"> (\S+changes\.jsonl)", step.dockerfile)
    assert feed and f"`{feed.group(1)}`" in step.instruction
    for path in (art.path, step.produces[0].path):
        assert f"`{path}`" in step.instruction
    assert step.produces[0].path == str(shop.parent / "shop_merged.db")
    assert step.produces[0].details["tables"] == {"products": art.details["tables"]["products"]}


def test_feed_covers_every_rule() -> None:
    table = delta_feed.FeedTable("t", ["id", "a", "b"], {"id": "INTEGER", "a": "TEXT", "b": "REAL"}, 40)

    records, as_of = delta_feed.feed_events(table, random.Random(1), datetime.datetime(2026, 3, 5, tzinfo=datetime.UTC))
    instant = shipped_merge.instant
    stale = [r for r in records if instant(r["ts"]) <= instant(as_of)]
    assert len(stale) == 4 and any(r["op"] == "delete" for r in stale)
    stamps = [r["ts"] for r in records]
    assert len({s[-6:] if s[-1] != "Z" else "Z" for s in stamps}) >= 3  # several offsets
    ties = [(r["id"], instant(r["ts"])) for r in records]
    assert len(ties) > len(set(ties))  # one row changed twice at one instant
    assert records != sorted(records, key=lambda r: r["seq"])  # not in file order


def test_delta_merge_tests_pass_the_reference_and_catch_wrong_merges(shop: Path, tmp_path: Path) -> None:
    step = build("sqlite-delta-merge", local(shop))
    assert failed(run(step, shop, tmp_path / "right")) == []
    wrongs = {
        "text order": [('instant(e["ts"]), e["seq"]', 'e["ts"], e["seq"]')],
        "no snapshot cutoff": [('if instant(e["ts"]) > cutoff]', "]")],
        "partial inserts": [
            ('elif set(event["data"]) == set(columns) - {key}:', "elif True:"),
            ('event["data"][c] for c in columns', 'event["data"].get(c, 0) for c in columns'),
        ],
    }
    for what, edits in wrongs.items():
        wrong = step.solution
        for right, bad in edits:
            assert right in wrong, what
            wrong = wrong.replace(right, bad, 1)
        results = run(step, shop, tmp_path / what.replace(" ", "_"), wrong)
        assert failed(results) == ["test_s1_feed_merged_by_the_rules"], (what, results)


# -- sqlite-migration-tool ------------------------------------------------------------------------------


def test_migration_applies_to_a_text_column_that_categorises(shop: Path) -> None:
    op, art = OPERATORS["sqlite-migration-tool"], artifact(shop)
    assert op.can_use(art, discovery(art)) and op.final
    merged = with_tables(art, extra=["a", "b"])  # a copy with another table: the same columns to migrate
    assert op.input_of(merged) == op.input_of(art) == "migrate:products.category"
    assert [(n.table, n.column, n.ref, n.fk) for n in migration_choices(art)] == [
        ("products", "category", "category_ref", "category_id")
    ]  # sku is unique (an identifier), the numbers are no text
    taken = art.model_copy(
        update={"details": {**art.details, "tables": {**art.details["tables"], "category_ref": ["k"]}}}
    )
    assert not op.can_use(taken, discovery(taken))


def test_migration_build_names_its_paths(shop: Path) -> None:
    art = artifact(shop)
    step = build("sqlite-migration-tool", art)
    assert step == build("sqlite-migration-tool", art)
    tool, out = "/app/bin/shop_migrate", str(shop.parent / "shop_v3.db")
    assert [a.path for a in step.produces] == [out, tool]
    for path in (art.path, tool, out):
        assert f"`{path}`" in step.instruction
    assert step.produces[0].details["tables"]["category_ref"] == ["id", "name"]


def test_migration_tests_pass_the_reference_and_catch_wrong_tools(shop: Path, tmp_path: Path) -> None:
    step = build("sqlite-migration-tool", local(shop))
    results = run(step, shop, tmp_path / "right")
    assert len(results) == 5 and failed(results) == [], results
    wrongs = {
        # an aggregate over no rows still gives one row: the trigger would add every value again
        "aggregate over the filtered rows": (
            'SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM "{REF}"), NEW."{COLUMN}"\n  WHERE',
            'SELECT COALESCE(MAX(id), 0) + 1, NEW."{COLUMN}" FROM "{REF}"\n  WHERE',
            "test_s1_triggers_keep_the_lookup_current",
        ),
        "ids in insertion order": ("ROW_NUMBER() OVER (ORDER BY v)", "ROW_NUMBER() OVER ()", "test_s1_migrated_copy"),
        "newer databases migrated": (
            "if version > LATEST:",
            "if version > 99:",
            "test_s1_tool_refuses_what_it_cannot_migrate",
        ),
    }
    for what, (right, bad, test) in wrongs.items():
        assert right in step.solution, what
        results = run(step, shop, tmp_path / what.replace(" ", "_"), step.solution.replace(right, bad))
        assert test in failed(results), (what, results)


# -- sqlite-index-plan ----------------------------------------------------------------------------------


def test_index_plan_applies_to_the_largest_table(shop: Path) -> None:
    op, art = OPERATORS["sqlite-index-plan"], artifact(shop)
    assert op.can_use(art, discovery(art)) and op.final
    choices = index_plan.index_choices(art)
    assert {(t, y) for t, _, y, _ in choices} == {("stock", "quantity")}
    assert {(x, z) for _, x, _, z in choices} == {("product_id", "warehouse_id"), ("warehouse_id", "product_id")}
    copy = with_tables(art, extra=["a"])
    assert op.input_of(copy) == op.input_of(art) == "index:stock(product_id,warehouse_id,quantity)"
    small = art.model_copy(update={"details": {**art.details, "rows": {"products": 15, "stock": 12}}})
    assert not op.can_use(small, discovery(small))


def test_index_plan_build_names_its_paths(shop: Path) -> None:
    art = artifact(shop)
    step = build("sqlite-index-plan", art)
    assert step == build("sqlite-index-plan", art)
    planted = re.search(r"> (\S+_queries\.sql)", step.dockerfile)
    assert planted and f"`{planted.group(1)}`" in step.instruction
    for path in (art.path, *(a.path for a in step.produces)):
        assert f"`{path}`" in step.instruction
    assert "at most 2 new" in step.instruction and "USE TEMP B-TREE" in step.instruction


def test_index_plan_tests_pass_the_reference_and_catch_weak_indexes(shop: Path, tmp_path: Path) -> None:
    step = build("sqlite-index-plan", local(shop))
    assert failed(run(step, shop, tmp_path / "right")) == []
    statements = re.findall(r"^CREATE INDEX .*$", step.solution, re.M)
    single = [re.sub(r', "[^"]+"\)', ")", s) for s in statements]  # one column each: the range query sorts
    three = [*statements, statements[0].replace("_idx", "_2_idx")]
    for what, indexes, test in (
        ("single-column indexes", single, "test_s1_no_query_scans_or_sorts"),
        ("three indexes", three, "test_s1_only_indexes_added_results_unchanged"),
    ):
        wrong = step.solution.replace("\n".join(statements), "\n".join(indexes))
        assert test in failed(run(step, shop, tmp_path / what.replace(" ", "_"), wrong)), what


# -- real engine ----------------------------------------------------------------------------------------


@pytest.mark.docker
@pytest.mark.parametrize("name", ["sqlite-delta-merge", "sqlite-migration-tool", "sqlite-index-plan"])
def test_child_accepted(tmp_path: Path, name: str) -> None:
    proposal, report = extend_with(name, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, name)
