"""http-status-classes: a table of status codes and counts gets its totals and shares per class, and its
tests catch a code put in the wrong class."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.logs import http_status_classes  # noqa: F401
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["http-status-classes"]
PATH = "/app/report/status_counts.csv"
COUNTS = "status,count\n200,120\n304,10\n404,30\n500,5\n503,5\n"


def artifact(text: str = COUNTS) -> Artifact:
    kind, details, sample = classify(PATH, text.encode())
    return Artifact(path=PATH, kind=kind, size=len(text), details=details, sample=sample, new=False)


def build(text: str = COUNTS) -> Step:
    found = Discovery(workdir="/app", artifacts=[artifact(text)], tools=["python3"])
    return OP.step(artifact(text), StepContext(discovery=found, rng=random.Random(0), tag="r8s1"))


def test_it_reads_http_codes_only() -> None:
    assert OP.can_use(artifact(), Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"]))
    ports = "port,count\n22,3\n80,9\n443,12\n8080,1\n"
    assert not OP.can_use(artifact(ports), Discovery(workdir="/app", artifacts=[], tools=["python3"]))
    all_ok = "status,count\n200,3\n201,9\n204,12\n"  # one class: no share worth a table
    assert not OP.can_use(artifact(all_ok), Discovery(workdir="/app", artifacts=[], tools=["python3"]))


def test_classes_and_shares_and_the_tests_catch_a_misclassed_code(tmp_path: Path) -> None:
    step = build()
    local = LocalStep(step, tmp_path)
    local.put(PATH, COUNTS)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    rows = out.read_text().splitlines()
    assert rows == [
        "class,count,share",
        "1xx,0,0.0000",
        "2xx,120,0.7059",
        "3xx,10,0.0588",
        "4xx,30,0.1765",
        "5xx,10,0.0588",
    ]
    out.write_text("\n".join([*rows[:4], "4xx,35,0.2059", "5xx,5,0.0294"]) + "\n")  # 503 read as a 4xx
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    solve = f"mkdir -p /app/report\ncat > {PATH} <<'CSV'\n{COUNTS}CSV\n"  # the parent's own report
    parent = parent_task(tmp_path, solve)
    proposal, report = extend_with("http-status-classes", parent)
    assert_accepted(proposal, report, "http-status-classes")
