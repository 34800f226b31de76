"""access-log-bursts and access-log-endpoints: each client's busiest window of a stated length, both ends
included, and each endpoint's traffic; their tests catch a window counted half-open and a query string
kept in a path."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.logs import access_log_reports  # noqa: F401
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.logs.test_access_log_sessions import LOG, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

OP = OPERATORS["access-log-bursts"]
PATH = "/app/logs/access.log"
# Client 9.9.9.9 hits at 0, 30, 60, 120 and 300 s: a window of W seconds holds one request more than a
# half-open one would, whichever W the step draws.
BURSTY = (
    "".join(
        f'9.9.9.9 - - [01/Apr/2026:11:{s // 60:02d}:{s % 60:02d} +0000] "GET / HTTP/1.1" 200 5\n'
        for s in (0, 30, 60, 120, 300)
    )
    + LOG
)  # first: the sample discovery keeps is the log's head, where the windows must differ
IN_WINDOW = {30: 2, 60: 3, 120: 4, 300: 5}
ENDPOINTS = OPERATORS["access-log-endpoints"]
MIXED = BURSTY + (
    '9.9.9.8 - - [01/Apr/2026:12:00:00 +0200] "POST /api/items?id=3 HTTP/1.1" 503 -\n'
    '9.9.9.8 - - [01/Apr/2026:12:00:01 +0200] "POST /api/items HTTP/1.1" 201 40\n'
    '9.9.9.8 - - [01/Apr/2026:12:00:02 +0200] "-" 400 0\n'
    '9.9.9.8 - - [31/Feb/2026:12:00:03 +0200] "POST /api/items HTTP/1.1" 500 7\n'
)


def build(seed: int) -> Step:
    found = artifact(BURSTY)
    return OP.step(found, StepContext(discovery=discovery(found), rng=random.Random(seed), tag="r7s1"))


def test_it_applies_to_access_logs_only() -> None:
    assert OP.can_use(artifact(BURSTY), discovery(artifact(BURSTY)))
    prose = artifact("the river ran cold and clear\n" * 20, path="/app/data/notes.txt")
    assert not OP.can_use(prose, discovery(prose))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_windows_are_closed_and_the_tests_catch_a_half_open_count(tmp_path: Path, seed: int) -> None:
    step = build(seed)
    window = int(re.search(r"WINDOW = .*?(\d+)\n", step.tests)[1])  # type: ignore[index]
    local = LocalStep(step, tmp_path)
    local.put(PATH, BURSTY)
    local.path("/app/derived").mkdir(parents=True)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    rows = out.read_text().splitlines()
    burst = next(r.split(",") for r in rows if r.startswith("9.9.9.9,"))
    assert burst[1:3] == [str(IN_WINDOW[window]), "2026-04-01T11:00:00Z"]
    out.write_text("\n".join(r.replace(f"9.9.9.9,{burst[1]},", f"9.9.9.9,{int(burst[1]) - 1},") for r in rows) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


def test_endpoints_drop_query_strings_and_requests_without_a_path(tmp_path: Path) -> None:
    found = artifact(MIXED)
    assert ENDPOINTS.can_use(found, discovery(found))
    step = ENDPOINTS.step(found, StepContext(discovery=discovery(found), rng=random.Random(0), tag="r7s2"))
    local = LocalStep(step, tmp_path)
    local.put(PATH, MIXED)
    local.path("/app/derived").mkdir(parents=True)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    rows = out.read_text().splitlines()
    assert "POST,/api/items,2,40,1,0.5000" in rows  # the query string goes, the impossible date is skipped
    assert rows[1] == "GET,/x,60,7770,0,0.0000" and rows[2] == "GET,/,5,25,0,0.0000"
    out.write_text("\n".join(r.replace("POST,/api/items,2,40,1", "POST,/api/items,1,40,0") for r in rows) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


@pytest.mark.docker
@pytest.mark.parametrize("operator", ["access-log-bursts", "access-log-endpoints"])
def test_child_accepted(tmp_path: Path, operator: str) -> None:
    solve = "mkdir -p /app/report\nawk '{print $1}' /app/logs/access.log | sort | uniq -c > /app/report/clients.txt\n"
    parent = parent_task(tmp_path, solve, dockerfile=BASE_DOCKERFILE + plant(PATH, MIXED))
    task_md = parent / "instruction.md"
    task_md.write_text(f"Count the requests per client of `{PATH}` into `/app/report/clients.txt`.\n")
    proposal, report = extend_with(operator, parent)
    assert_accepted(proposal, report, operator)
