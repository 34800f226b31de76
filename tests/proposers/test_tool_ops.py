"""Tool operators (a rollup tool with a contract, a streaming summary tool): preconditions, determinism,
and a child per operator accepted against its parent."""

from __future__ import annotations

import random

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators import workflow
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


def test_csv_pairs_need_a_decimal_column_and_a_text_column() -> None:
    assert workflow.csv_pairs(csv_artifact()) == [("city", "amount"), ("note", "amount")]
    assert workflow.csv_pairs(csv_artifact("a,b\n1,2\n3,4\n")) == [("a", "b")]  # all numeric: first column
    assert workflow.csv_pairs(csv_artifact("a,b\nx,1e5\ny,2\n")) == []  # an exponent is no exact decimal
    assert workflow.csv_pairs(csv_artifact("a\tb\nx\t1\n", "/app/t.tsv")) == []  # comma-separated only


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
        op.build(csv_artifact(), StepContext(discovery=discovery(), rng=random.Random(5), tag="r1s1")) for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, name, "exec")
    for path in [a.path for a in step.produces] + [step.consumes]:
        assert f"`{path}`" in step.instruction, path
    for edge in ("CRLF", "quoted", "UTF-8", "Empty" if name == "csv-stream-summary" else "empty input"):
        assert edge in step.instruction, edge


def test_stream_summary_plants_a_large_input_at_build_time() -> None:
    step = OPERATORS["csv-stream-summary"].build(
        csv_artifact(), StepContext(discovery=discovery(), rng=random.Random(1), tag="r2s1")
    )
    assert step.dockerfile.startswith("RUN ") and "base64 -d | python3 -" in step.dockerfile
    assert "/app/incoming/r2s1/sales_large.csv.gz" in step.instruction
    assert "50000 data rows" in step.instruction  # 100 x 5 rows, at least 50,000


@pytest.mark.docker
@pytest.mark.parametrize("operator", TOOL_OPERATORS)
def test_child_accepted(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, operator)
