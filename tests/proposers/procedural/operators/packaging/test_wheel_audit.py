"""wheel-audit: where it applies, the audit of hand-broken wheels, a deterministic step that names its
paths, its generated tests on its own tool (and on one that forgets async functions), and a child accepted
against a parent that builds a wheel."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_audit as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import (
    PARENT_SOLVE,
    PIP_DOCKERFILE,
    WHEEL,
    discovery,
    pyproject,
    wheel_bytes,
)
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["wheel-audit"]


def build(seed: int = 1) -> Step:
    return OP.step(pyproject(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r5s1"))


def test_it_applies_to_a_project_with_a_wheel() -> None:
    assert OP.can_use(pyproject(), discovery()) and OP.final
    other = pyproject('[project]\nname = "other"\n')
    assert not OP.can_use(other, discovery())


def test_audit_of_broken_wheels(tmp_path: Path) -> None:
    found = {}
    for case, name, files in shipped.broken_cases():
        (tmp_path / case).mkdir()
        shipped.write_wheel(tmp_path / case / name, files)
        found[case] = shipped.audit(tmp_path / case / name)
    assert found == {
        "ok": [],
        "unlisted": ["record-missing demo_pkg/extra.py"],
        "changed": ["record-extra demo_pkg/data/ünï.txt", "record-hash demo_pkg/cli.py"],
        "metadata": ["metadata-name", "metadata-version", "wheel-tag"],
        "entry": ["entry-point-function a", "entry-point-module b"],
        "other-info": ["dist-info-mismatch"],
        "filename": ["bad-filename"],
    }


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {WHEEL, "/app/bin/pyproject_wheel_audit", "/app/audit/text_stats-0.3.0-py3-none-any.txt"}
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_tool_and_fail_without_async_functions(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.put(WHEEL, wheel_bytes())
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    report = local.path("/app/audit/text_stats-0.3.0-py3-none-any.txt").read_text().splitlines()
    assert "record-missing textstats.py" in report and "wheel-tag" in report  # the test wheel has no WHEEL file
    tool = local.path("/app/bin/pyproject_wheel_audit")
    source = tool.read_text()
    tool.write_text(
        source.replace("isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))", "isinstance(n, ast.FunctionDef)")
    )
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="broken")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("wheel-audit", parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE))
    assert_accepted(proposal, report, "wheel-audit")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
