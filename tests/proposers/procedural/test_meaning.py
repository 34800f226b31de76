"""Every rule that keeps a meaningless number out of a lineage, each on the case it comes from: steps that
capable agents, solving round-5 tasks, called bookkeeping or meaningless."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.columns import Role, Unfit, Use, column_roles
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.meaning import Lineage, Refusal, allowed, refusal
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.kit.text import is_prose
from rst_synth.proposers.procedural.operators.kit.workflow import csv_shape
from rst_synth.proposers.procedural.operators.tables import incremental_fold, reconcile_and_quarantine
from rst_synth.proposers.procedural.scenarios import BY_NAME
from rst_synth.task import HistoryStep

SALES = "order_id,region,amount,units\n" + "".join(
    f"{i},{('north', 'south', 'east')[i % 3]},{10 + i}.25,{i % 4 + 1}\n" for i in range(12)
)


def artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def lineage(*history: HistoryStep, scenario: str = "quarter-close", first: bool = False) -> Lineage:
    return Lineage(history=list(history), scenario=BY_NAME[scenario], first_of_round=first)


def test_a_deliverable_the_job_has_no_room_for_is_refused() -> None:
    sales = artifact("/app/out/sales.csv", SALES)
    assert refusal(OPERATORS["serve-csv-http"], sales, lineage()) is Refusal.OFF_SCENARIO
    assert refusal(OPERATORS["serve-csv-http"], sales, lineage(scenario="data-migration")) is None


def test_bookkeeping_comes_once_and_never_first_in_a_round() -> None:
    """tar bundles were the last round's only step in 5 of 13 round-5 tasks, beside sha256 lists."""
    sales = artifact("/app/out/sales.csv", SALES)
    bundle = OPERATORS["files-bundle-targz"]
    assert refusal(bundle, sales, lineage(first=True)) is Refusal.BOOKKEEPING_ALONE
    assert refusal(bundle, sales, lineage()) is None
    manifest = HistoryStep(
        name="file-sha256-manifest", consumes=["/app/x"], produces=["/app/x.sha256"], bookkeeping=True
    )
    assert refusal(bundle, sales, lineage(manifest)) is Refusal.BOOKKEEPING_AGAIN
    assert OPERATORS["permissions-policy"].bookkeeping  # its audit repeats the policy back


def test_a_tool_of_a_kind_is_written_once_per_lineage() -> None:
    """Four near-identical layer tools of one lineage, differing only in a prefix."""
    layers = HistoryStep(name="config-layered-merge", consumes=["/app/config/a.ini"], produces=["/app/bin/a_merge"])
    other = artifact("/app/config/b.ini", "[db]\nhost = x\nport = 5432\n")
    scenario = "config-rollout"
    assert refusal(OPERATORS["config-layered-merge"], other, lineage(layers, scenario=scenario)) is Refusal.TOOL_AGAIN
    report = HistoryStep(name="csv-group-totals", consumes=["/app/a.csv"], produces=["/app/out/a_totals.csv"])
    sales = artifact("/app/out/sales.csv", SALES)
    assert refusal(OPERATORS["csv-group-totals"], sales, lineage(report)) is None  # a report is no tool


def test_no_conversion_of_a_conversion_and_no_second_conversion_of_a_file() -> None:
    """A second CSV-to-JSON conversion of the file already converted."""
    exported = HistoryStep(name="sqlite-table-to-csv", consumes=["/app/inventory.db"], produces=["/app/out/stock.csv"])
    stock = artifact("/app/out/stock.csv", SALES)
    to_json = OPERATORS["csv-to-json-records"]
    state = lineage(exported, scenario="data-migration")
    assert not allowed(to_json, stock, state) and state.refused[Refusal.CONVERSION_OF_CONVERSION] == 1
    converted = HistoryStep(name="config-to-json", consumes=["/app/out/sales.csv"], produces=["/app/out/sales.json"])
    sales = artifact("/app/out/sales.csv", SALES)
    assert refusal(to_json, sales, lineage(converted, scenario="data-migration")) is Refusal.CONVERSION_OF_CONVERSION
    assert refusal(to_json, sales, lineage(scenario="data-migration")) is None


ROSTER = """username,uid,full_name,team,extra_groups,status
amoreau,2001,Anna Moreau,analytics,reports;vpn,active
bkeller,2002,Ben Keller,platform,ops;vpn,active
cnguyen,2003,Chi Nguyen,analytics,,active
dsilva,2004,Diego Silva,support,reports,active
eokafor,2005,Ebere Okafor,platform,ops,left
fhansen,2006,Frida Hansen,support,,active
gbrown,2007,Grace Brown,platform,vpn;reports;ops,active
hlee,2008,Hyun Lee,analytics,vpn,active
iward,2009,Isla Ward,support,vpn,left
jtanaka,2010,Jun Tanaka,platform,,active
"""
"""The users-permissions seed's roster, as its lineage's discovery saw it."""


def _seed_database(tmp_path: Path) -> Artifact:
    """The seed's own database, with a table of its own."""
    db = tmp_path / "accounts.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE users (name TEXT NOT NULL, uid INTEGER NOT NULL)")
        connection.executemany("INSERT INTO users VALUES (?, ?)", [(f"u{k}", 1000 + k) for k in range(8)])
    kind, details, sample = classify("/app/data/accounts.db", db.read_bytes())
    return Artifact(path="/app/data/accounts.db", kind=kind, size=db.stat().st_size, details=details, sample=sample)


def test_a_csv_loaded_into_a_table_is_not_exported_back(tmp_path: Path) -> None:
    """users-permissions: roster.csv loaded into a database (`csv-to-sqlite`), its table exported back
    (`sqlite-table-to-csv`), then the members listed from the export, the bytes of the list from roster.csv:
    the validator's redundant output, and the end of the lineage. The load may be this child's own step."""
    found = Discovery(workdir="/app", artifacts=[], tools=["python3"], python_modules=["sqlite3"])
    roster = artifact("/app/onboarding/roster.csv", ROSTER)
    load, export = OPERATORS["csv-to-sqlite"], OPERATORS["sqlite-table-to-csv"]
    loaded = load.step(roster, _ctx()).produces[0]
    assert loaded.kind is Kind.SQLITE and export.can_use(loaded, found)
    loading = HistoryStep(name=load.name, consumes=[roster.path], produces=[loaded.path])
    state = lineage(loading, scenario="backup-audit")
    assert not allowed(export, loaded, state) and state.refused[Refusal.CONVERSION_OF_CONVERSION] == 1
    seed = _seed_database(tmp_path)
    assert export.can_use(seed, found) and refusal(export, seed, state) is None
    # the other way round: a table exported to CSV is not loaded back
    exporting = HistoryStep(name=export.name, consumes=[seed.path], produces=["/app/derived/accounts_users_export.csv"])
    users = artifact("/app/derived/accounts_users_export.csv", "name,uid\nu0,1000\nu1,1001\n")
    assert refusal(load, users, lineage(exporting, scenario="backup-audit")) is Refusal.CONVERSION_OF_CONVERSION
    # a CSV converted to JSON records may still be loaded (a database is where SQL steps work, no delivery)
    to_json = HistoryStep(name="csv-to-json-records", consumes=[roster.path], produces=["/app/derived/r.json"])
    assert refusal(load, roster, lineage(to_json, scenario="backup-audit")) is None


def test_nothing_builds_on_what_a_round_trip_wrote() -> None:
    """The round-8 child listed the members of the export of a round trip built before the rule."""
    trip = [
        HistoryStep(name="csv-to-sqlite", consumes=["/app/onboarding/roster.csv"], produces=["/app/derived/r.sqlite"]),
        HistoryStep(name="sqlite-table-to-csv", consumes=["/app/derived/r.sqlite"], produces=["/app/derived/r.csv"]),
    ]
    members = OPERATORS["csv-list-members"]
    back = artifact("/app/derived/r.csv", ROSTER)
    assert members.can_use(back, Discovery(workdir="/app", artifacts=[], tools=["python3"]))
    assert refusal(members, back, lineage(*trip, scenario="backup-audit")) is Refusal.ROUND_TRIP
    roster = artifact("/app/onboarding/roster.csv", ROSTER)
    assert refusal(members, roster, lineage(*trip, scenario="backup-audit")) is None


def test_groups_of_single_rows_statistics_of_few_rows_and_of_signed_changes_mean_nothing() -> None:
    """A per-name top 2 where almost every name is one row; the warehouses above the mean of 3 warehouse
    totals; rows above the mean of stock-move deltas."""
    names = ["ana"] * 6 + ["bo", "cy", "di", "ed", "fay", "gus"]  # 7 names over 12 rows, 6 of them once
    columns = column_roles(["name", "score"], [[n, str(k)] for k, n in enumerate(names)])
    assert columns["name"].unfit(Use.GROUP) is Unfit.SINGLE_ROW_GROUPS
    totals = column_roles(["warehouse", "stock_total"], [["w1", "120"], ["w2", "80"], ["w3", "95"]])
    assert totals["stock_total"].unfit(Use.STATS) is Unfit.FEW_ROWS
    moves = column_roles(["sku", "delta"], [[f"s{k % 3}", str(d)] for k, d in enumerate([5, -3, 12, -7, 2, -1, 9, -4])])
    assert moves["delta"].role is Role.CHANGE
    assert moves["delta"].fits(Use.SUM) and moves["delta"].unfit(Use.STATS) is Unfit.ROLE  # net change, no mean
    assert column_roles(["region"], [[r] for r in "nnssee"])["region"].fits(Use.GROUP)


def test_text_operators_take_prose_not_sql_code_or_checksums() -> None:
    """ "Distinctive terms" (TF-IDF) over two SQL files and a checksum list: hex digits and SQL keywords."""
    notes = "Customer called about the late order and asked for a refund.\nShe will call again on Monday.\n"
    assert is_prose(artifact("/app/notes/ticket-1.txt", notes))
    sql = "CREATE TABLE stock (sku TEXT, qty INTEGER);\nINSERT INTO stock VALUES ('a', 1);\n"
    assert not is_prose(artifact("/app/out/schema.sql", sql))
    assert not is_prose(artifact("/app/out/schema.txt", sql))
    checksums = "".join(f"{k:064x}  /app/out/file{k}.csv\n" for k in range(4))
    assert not is_prose(artifact("/app/out/files.txt", checksums))


def _ctx(seed: int = 3) -> StepContext:
    return StepContext(discovery=Discovery(workdir="/app", artifacts=[], tools=["python3"]), rng=random.Random(seed))


def test_a_partners_figures_come_in_the_units_of_ours() -> None:
    """A partner's reconciliation of `unit_cost_cents` against values that look like dollars."""
    costs = "sku,unit_cost_cents\n" + "".join(f"p{k},{100 + 37 * k}\n" for k in range(10))
    shape = csv_shape(artifact("/app/out/costs.csv", costs), _ctx(), [("sku", "unit_cost_cents")])
    for seed in range(20):
        feed = reconcile_and_quarantine._partner_feed(shape, _ctx(seed), "2026-01-01")
        figures = [str(r["value"]).strip() for r in feed if r["value"] not in (None, "", "n/a")]
        assert figures and all(f.lstrip("-").isdigit() for f in figures), figures


def test_a_ledger_folds_money_of_one_kind() -> None:
    """A ledger that folded line items and unrelated batch rows into one total."""
    assert incremental_fold._foldable(artifact("/app/out/sales.csv", SALES)) == [("region", "amount")]
    shape = csv_shape(artifact("/app/out/sales.csv", SALES), _ctx(), [("region", "amount")])
    for text in incremental_fold._batches(shape, _ctx()):
        rows = [line.split(",") for line in text.splitlines()[1:]]
        assert {r[0] for r in rows} <= {"north", "south", "east"}
        amounts = [float(r[1]) for r in rows if r[1].replace(".", "", 1).isdigit()]
        assert all(10.25 <= a <= 21.25 for a in amounts), amounts


def test_an_inventory_of_a_tiny_file_is_refused() -> None:
    """A function inventory of a two-function script."""
    found = Discovery(workdir="/app", artifacts=[], tools=["python3"])
    inventory = OPERATORS["python-source-inventory"]
    two = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    four = two + "\n\ndef c():\n    return 3\n\n\nclass D:\n    pass\n"
    assert not inventory.applies(artifact("/app/tool.py", two), found)
    assert inventory.applies(artifact("/app/tool.py", four), found)


def test_the_schema_check_never_checks_the_file_it_was_taken_from() -> None:
    """A validator run on the very file its schema was taken from (always `ok`), four times."""
    doc = artifact("/app/api/orders.json", '{"data": [{"id": 1, "customer": {"id": 7}}], "page": 1}\n')
    assert doc.kind is Kind.JSON
    step = OPERATORS["json-schema-check"].step(doc, _ctx())
    assert f"{step.produces[1].path} " not in step.solution.split("chmod 0755")[-1]
    assert "against the schema with it" not in step.instruction


def test_operators_the_caller_names_are_drawn_whatever_the_rules_say() -> None:
    sales = artifact("/app/out/sales.csv", SALES)
    chosen = Lineage(history=[], scenario=BY_NAME["quarter-close"], first_of_round=True, chosen=True)
    assert refusal(OPERATORS["serve-csv-http"], sales, chosen) is None
    assert refusal(OPERATORS["files-bundle-targz"], sales, chosen) is None
