"""CSV operators: preconditions, and a child per operator accepted against its parent."""

from __future__ import annotations

import random

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.tables import group_totals_and_records  # noqa: F401
from tests.support.operators import assert_accepted, extend_with, parent_task

SALES = (
    "region,product,units,price\nnorth,a,3,2.5\nsouth,b,1,4.0\nnorth,b,2,4.0\n"
    "east,a,5,2.5\nsouth,a,1,2.5\neast,b,2,4.0\nnorth,a,4,2.5\n"
)  # north/a twice: a cross of region and product counts something only where a pair repeats
PARENT_SOLVE = f"mkdir -p /app/out\ncat > /app/out/sales.csv <<'CSV'\n{SALES}CSV\n"


def csv_artifact(text: str = SALES) -> Artifact:
    kind, details, sample = classify("/app/out/sales.csv", text.encode())
    return Artifact(path="/app/out/sales.csv", kind=kind, details=details, sample=sample)


def discovery(*tools: str) -> Discovery:
    return Discovery(workdir="/app", artifacts=[csv_artifact()], tools=list(tools) or ["python3"])


def test_classify_csv_details() -> None:
    art = csv_artifact()
    assert art.kind is Kind.CSV
    assert art.details["numeric"] == ["units", "price"]
    assert art.details["categorical"] == ["region", "product"]


def test_group_totals_precondition() -> None:
    op = OPERATORS["csv-group-totals"]
    assert op.can_use(csv_artifact(), discovery())
    all_numeric = csv_artifact("a,b\n1,2\n3,4\n")
    assert not op.can_use(all_numeric, discovery())
    assert not op.can_use(csv_artifact(), Discovery(workdir="/app", tools=[]))  # no python3, no apt-get


def test_build_is_deterministic() -> None:
    op = OPERATORS["csv-group-totals"]
    steps = [op.step(csv_artifact(), StepContext(discovery=discovery(), rng=random.Random(7))) for _ in range(2)]
    assert steps[0] == steps[1]


@pytest.mark.docker
@pytest.mark.parametrize("operator", ["csv-group-totals", "csv-to-json-records", "csv-crosstab"])
def test_child_accepted_and_new_checks_fail_on_parent(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, operator)
