"""config-drift-report: where it applies, the comparison rules on hand-checked cases (types matter, a missing
table gives its leaves), a deterministic step whose planted snapshots drift, its generated tests passing on its
own tool and failing on a tool that compares with Python's `==` or reports a missing table as one path, and a
child accepted against its parent."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config.shipped import drift_report as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.config.test_layered_merge import APP, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["config-drift-report"]


def build(seed: int = 4) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r3s1"))


def test_it_applies_to_configurations_with_typed_values() -> None:
    assert OP.can_use(artifact(), discovery())
    strings = artifact('[a]\nx = "1"\ny = "2"\nz = "3"\n[b]\nw = "4"\n', "/app/config/strings.toml")
    assert not OP.can_use(strings, discovery(strings))  # no value a hand edit could retype unseen
    assert OP.once


def test_drift_rules() -> None:
    base = {"v": 1, "http": {"port": 80, "debug": True, "ratio": 2.0, "tags": ["a", "b"]}, "db": {"x": 1, "y": "s"}}
    host = {"v": 1.0, "http": {"port": 80, "debug": 1, "ratio": 2.0, "tags": ["b", "a"], "new": 0}, "empty": {}}
    assert shipped.drift(base, host) == {
        "changed": ["http.debug", "http.tags", "v"],
        "missing": ["db.x", "db.y"],
        "unexpected": ["http.new"],
    }
    assert shipped.drift(base, dict(reversed(list(base.items())))) == {"changed": [], "missing": [], "unexpected": []}
    moved = {**base, "db": {"x": {"value": 1}, "y": "s"}}
    assert shipped.drift(base, moved) == {"changed": [], "missing": ["db.x"], "unexpected": ["db.x.value"]}


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    assert [a.path for a in step.produces] == ["/app/drift/app_drift.json", "/app/bin/app_drift"]
    assert step.dockerfile.count("/app/incoming/r3s1/hosts/") == 3 * 2


def test_generated_tests_pass_on_the_tool_and_fail_on_subtly_wrong_ones(tmp_path: Path) -> None:
    files = {"/app/config/app.toml": APP.encode()}
    step = build()
    results = outcomes(step, tmp_path / "ok", files=files)
    assert len(results) == 3 and not failed(results), results
    loose = step.solution.replace("return type(a) is type(b) and a == b", "return a == b")
    assert loose != step.solution  # Python's == calls 1 and 1.0, true and 1 the same
    assert {"test_r3s1_saved_report_of_the_hosts", "test_r3s1_tool_on_fresh_snapshots"} <= set(
        failed(outcomes(step, tmp_path / "loose", files=files, solution=loose))
    )
    nested = 'found.update(flat(value, prefix + key + "."))'
    whole = step.solution.replace(nested, 'found.update({prefix + key: value} if prefix else flat(value, key + "."))')
    assert whole != step.solution  # a nested table compared whole: a missing one is one path, not its values
    assert "test_r3s1_tool_on_fresh_snapshots" in failed(
        outcomes(step, tmp_path / "whole", files=files, solution=whole)
    )


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-drift-report", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-drift-report")
