"""csv-time-buckets and csv-interval-peak: a table of sessions gets per-hour totals with the empty hours kept
and its busiest instant, and their tests catch a dropped empty hour, a half-open interval and a wrong time."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.tables import time_buckets_and_peak  # noqa: F401
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

BUCKETS, PEAK = OPERATORS["csv-time-buckets"], OPERATORS["csv-interval-peak"]
PATH = "/app/sessions/access_sessions.csv"
SESSIONS = """client,start,end,requests,bytes,errors
10.0.0.1,2024-03-01T09:58:10Z,2024-03-01T10:05:00Z,5,1200,0
10.0.0.2,2024-03-01T10:05:00Z,2024-03-01T10:30:00Z,3,800,1
10.0.0.3,2024-03-01T12:10:00+02:00,2024-03-01T10:30:00Z,2,300,0
10.0.0.1,2024-03-01T10:30:00,2024-03-01T10:30:00,1,50,1
10.0.0.4,,2024-03-01T11:00:00Z,4,999,2
10.0.0.5,2024-03-01T12:40:00Z,2024-03-01T12:41:00Z,2,150,0
10.0.0.6,2024-03-01T12:50:00Z,2024-03-01T12:45:00Z,1,10,1
"""
# 10.0.0.3 starts at 10:10 UTC; three rows are open at 10:30 (half-open intervals would see two at 10:10);
# 11:00 holds no row.


def artifact(text: str = SESSIONS) -> Artifact:
    kind, details, sample = classify(PATH, text.encode())
    return Artifact(path=PATH, kind=kind, size=len(text), details=details, sample=sample, input=True, new=False)


def discovery(text: str = SESSIONS) -> Discovery:
    return Discovery(workdir="/app", artifacts=[artifact(text)], tools=["python3"])


def build(operator_name: str, text: str = SESSIONS, seed: int = 0) -> Step:
    ctx = StepContext(discovery=discovery(text), rng=random.Random(seed), tag="r7s1")
    return OPERATORS[operator_name].step(artifact(text), ctx)


def test_they_read_timestamps_not_identifiers_or_one_instant() -> None:
    assert BUCKETS.can_use(artifact(), discovery()) and PEAK.can_use(artifact(), discovery())
    untimed = "client,requests\n" + "".join(f"h{i},{i * 7 % 5}\n" for i in range(9))
    assert not BUCKETS.can_use(artifact(untimed), discovery(untimed))
    one_minute = "client,start,bytes\n" + "".join(f"h{i},2024-03-01T10:00:0{i}Z,{i}\n" for i in range(5))
    assert not BUCKETS.can_use(artifact(one_minute), discovery(one_minute))  # one bucket is no spread over time
    assert not PEAK.can_use(artifact(one_minute), discovery(one_minute))  # no end: no intervals
    for seed in range(4):
        text = build("csv-time-buckets", seed=seed).instruction
        assert "hour of their `start`" in text or "hour of their `end`" in text
        assert "`requests`" in text and "`client`" not in text


def test_buckets_keep_the_empty_hour_and_their_tests_catch_its_loss(tmp_path: Path) -> None:
    step = next(s for n in range(20) if "of their `start`" in (s := build("csv-time-buckets", seed=n)).instruction)
    local = LocalStep(step, tmp_path)
    local.put(PATH, SESSIONS)
    local.path("/app/derived").mkdir(parents=True)  # the proposer's mkdir for outputs of inputs
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    rows = out.read_text().splitlines()
    assert rows == [
        "hour,rows,requests,bytes,errors",
        "2024-03-01T09:00Z,1,5,1200,0",
        "2024-03-01T10:00Z,3,6,1150,2",
        "2024-03-01T11:00Z,0,0,0,0",
        "2024-03-01T12:00Z,2,3,160,1",
    ]
    out.write_text("\n".join(r for r in rows if not r.startswith("2024-03-01T11")) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


def test_peak_is_inclusive_and_its_tests_catch_a_half_open_count(tmp_path: Path) -> None:
    step = build("csv-interval-peak")
    local = LocalStep(step, tmp_path)
    local.put(PATH, SESSIONS)
    local.path("/app/derived").mkdir(parents=True)  # the proposer's mkdir for outputs of inputs
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    got = json.loads(out.read_text())
    assert (got["peak"], got["at"], got["skipped"]) == (3, "2024-03-01T10:30:00Z", 2)
    assert len(got["open"]) == 3
    # Half-open intervals would see two rows at 10:05 and call that the peak.
    out.write_text(json.dumps({**got, "peak": 2, "at": "2024-03-01T10:05:00Z", "open": got["open"][:2]}))
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


@pytest.mark.docker
@pytest.mark.parametrize("operator", ["csv-time-buckets", "csv-interval-peak"])
def test_child_accepted(tmp_path: Path, operator: str) -> None:
    solve = "mkdir -p /app/out\nwc -l < /app/sessions/access_sessions.csv > /app/out/lines.txt\n"
    parent = parent_task(tmp_path, solve, dockerfile=BASE_DOCKERFILE + plant(PATH, SESSIONS))
    (parent / "instruction.md").write_text(f"Count the lines of `{PATH}` into `/app/out/lines.txt`.\n")
    proposal, report = extend_with(operator, parent)
    assert_accepted(proposal, report, operator)
