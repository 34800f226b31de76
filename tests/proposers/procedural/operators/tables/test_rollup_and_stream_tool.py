"""Tool operators (a rollup tool with a contract, a streaming summary tool): preconditions, determinism,
and a child per operator accepted against its parent."""

from __future__ import annotations

import random

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.kit import workflow
from tests.support.operators import assert_accepted, extend_with, parent_task

SALES = (
    "city,amount,note\n"
    'Zürich,12.50,"first, quoted"\n'
    "Oslo,3,plain\n"
    'Zürich,-4.25,"say ""hi"""\n'
    "Lima,100.05,x\n"
    "Oslo,0.45,y\n"
)
PARENT_SOLVE = f"mkdir -p /app/out\ncat > /app/out/sales.csv <<'CSV'\n{SALES}CSV\n"
TOOL_OPERATORS = ("csv-rollup-tool", "csv-stream-summary")


def csv_artifact(text: str = SALES, path: str = "/app/out/sales.csv") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*artifacts: Artifact, tools: tuple[str, ...] = ("python3", "gzip")) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts) or [csv_artifact()], tools=list(tools))


def test_csv_pairs_group_by_what_categorises_and_total_what_adds_up() -> None:
    assert workflow.csv_pairs(csv_artifact()) == [("city", "amount")]  # `note` is unique per row: no group
    assert workflow.csv_pairs(csv_artifact("a,b\n1,2\n3,4\n")) == []  # nothing categorises
    assert workflow.csv_pairs(csv_artifact("a,b\nx,1e5\ny,2\nx,3\n")) == []  # an exponent is no exact decimal
    # row numbers, flags, unit prices and codes are never totalled; a summary's key is no group
    meaningless = "region,record,active,unit_price,status\nn,1,0,4.99,200\ns,2,1,5.00,404\nn,3,0,4.99,200\n"
    assert workflow.csv_pairs(csv_artifact(meaningless)) == []
    assert workflow.csv_pairs(csv_artifact("status,count\n200,5\n404,3\n500,1\n")) == []
    assert workflow.csv_pairs(csv_artifact("a\tb\nx\t1\n", "/app/t.tsv")) == []  # comma-separated only
    report = "status,count,total\n200,1,5.00\n404,1,2.00\n"  # a tool's own per-group result
    assert workflow.csv_pairs(csv_artifact(report, "/app/out/status_report.csv")) == []


@pytest.mark.parametrize("name", TOOL_OPERATORS)
def test_preconditions(name: str) -> None:
    op = OPERATORS[name]
    assert op.can_use(csv_artifact(), discovery())
    assert not op.can_use(csv_artifact("a,b\nx,y\nz,w\n"), discovery())  # nothing to add up
    assert not op.can_use(csv_artifact(), discovery(tools=()))  # no python3 and no apt-get
    repo = Artifact(path="/app", kind=Kind.GIT)  # /app/bin would lie inside a repository
    assert not op.can_use(csv_artifact(), discovery(csv_artifact(), repo))
    assert not op.bookkeeping and op.fit(csv_artifact(), discovery()) > OPERATORS["text-line-stats"].weight


@pytest.mark.parametrize("name", TOOL_OPERATORS)
def test_build_is_deterministic_and_states_every_path(name: str) -> None:
    op = OPERATORS[name]
    steps = [
        op.step(csv_artifact(), StepContext(discovery=discovery(), rng=random.Random(5), tag="r1s1")) for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, name, "exec")
    for path in [a.path for a in step.produces] + [step.consumes]:
        assert f"`{path}`" in step.instruction, path
    for edge in ("CRLF", "quoted", "UTF-8", "Empty" if name == "csv-stream-summary" else "empty input"):
        assert edge in step.instruction, edge


def test_stream_summary_plants_a_large_input_at_build_time() -> None:
    step = OPERATORS["csv-stream-summary"].step(
        csv_artifact(), StepContext(discovery=discovery(), rng=random.Random(1), tag="r2s1")
    )
    assert step.dockerfile.startswith("RUN ") and "base64 -d | python3 -" in step.dockerfile
    assert "/app/incoming/r2s1/sales_large.csv.gz" in step.instruction
    assert "50000 data rows" in step.instruction  # 100 x 5 rows, at least 50,000
    summary = step.produces[0]
    assert summary.path.endswith("_large_summary.csv") and summary.end_result  # no later step filters it


@pytest.mark.docker
@pytest.mark.parametrize("operator", TOOL_OPERATORS)
def test_child_accepted(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, operator)


PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
TRANSFERS = "# payee amount channel\n" + "".join(
    f"{PEOPLE[i * 5 % 7]} {(i * 37 % 90) + 0.25 * (i % 4):.2f} {('wire', 'card')[i % 2]}\n" for i in range(24)
)
"""Whitespace-separated records: payees repeat, amounts add up."""
AUDIT = "alice 2999 ops vpn,dev\nbob 3001 dev -\n# retired\ncarol 3002 ops -\n"
"""One line per account with its uid: a total of uids per name means nothing."""
TEXT_PARENT = f"mkdir -p /app/out\ncat > /app/out/transfers.txt <<'TXT'\n{TRANSFERS}TXT\n"


def text_artifact(text: str = TRANSFERS, path: str = "/app/out/transfers.txt") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def test_records_tool_finds_a_key_and_a_value_field() -> None:
    from rst_synth.proposers.procedural.operators.text import records_tool

    assert records_tool._layout(text_artifact()) == (1, 2)
    # one line per key: a top 5 of sums that are the values themselves ranks nothing
    assert records_tool._layout(text_artifact(AUDIT, "/app/out/audit.txt")) is None
    assert records_tool._layout(text_artifact("count: 12\nmin: -3.5\nmax: 40\n")) is None
    five = "".join(f"{PEOPLE[i % 5]} {i}.50\n" for i in range(20))  # five keys: the top 5 is all of them
    assert records_tool._layout(text_artifact(five)) is None
    statuses = "".join(f"{PEOPLE[i % 7]} {(200, 404)[i % 3 == 0]}\n" for i in range(40))  # a code, not an amount
    assert records_tool._layout(text_artifact(statuses)) is None
    assert records_tool._layout(text_artifact("one\ntwo\n")) is None  # a single field
    assert records_tool._layout(text_artifact("a b\nc d\n")) is None  # no number anywhere
    op = OPERATORS["text-records-tool"]
    assert op.can_use(text_artifact(), discovery(text_artifact()))
    assert not op.can_use(text_artifact(), discovery(text_artifact(), tools=()))
    own_output = text_artifact("key\tsum\nalice\t2999.00\n", "/app/out/transfers_top5.txt")
    assert not op.can_use(own_output, discovery(own_output))  # its header keeps it from feeding on itself


def test_records_tool_build_is_deterministic() -> None:
    op = OPERATORS["text-records-tool"]
    art = text_artifact()
    steps = [op.step(art, StepContext(discovery=discovery(art), rng=random.Random(2), tag="r1s1")) for _ in range(2)]
    assert steps[0] == steps[1]
    compile(steps[0].tests, "t", "exec")
    for path in ("/app/bin/transfers_top", "/app/out/transfers.txt", "/app/out/transfers_top5.tsv"):
        assert f"`{path}`" in steps[0].instruction
    for edge in ("CRLF", "standard input", "empty input", "non-ASCII", "malformed"):
        assert edge in steps[0].instruction, edge


@pytest.mark.docker
def test_records_tool_child_accepted(tmp_path) -> None:
    proposal, report = extend_with("text-records-tool", parent_task(tmp_path, TEXT_PARENT))
    assert_accepted(proposal, report, "text-records-tool")
