"""Tasks people bring (tests/fixtures/tb2): eight Terminal-Bench-2-style tasks written as their authors
would write them, not for our operators. They keep that benchmark's conventions, the light ones
validate on the real engine, and the table of `scripts/grow_foreign.py` (which grows every fixture
three generations offline) reads a run's lineages right.

The docker test validates the light fixtures only (Python, git, gcc and g++ images, about a minute
with cached base layers), with the determinism and quality checks off: CI runs the whole suite in
under 40 minutes on 2 cores. The Go and Java fixtures (HEAVY) are left to the script and to
`rst validate tests/fixtures/tb2/*`: their toolchains take one to two minutes to install per image
build, and the Java service's oracle and tests take another half minute."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from rst_synth.store import Store, TaskRow
from rst_synth.task import Task
from rst_synth.validator import Check, Reason, Validator, ValidatorConfig
from tests.support.docker import run_async
from tests.support.tasks import BASE_DOCKERFILE, REPO

TB2 = REPO / "tests" / "fixtures" / "tb2"
FIXTURES = sorted(p.name for p in TB2.iterdir() if (p / "task.toml").is_file())
HEAVY = {
    "go-shipments-db": "golang-go and Debian's cgo SQLite driver: about 100 s of image build",
    "java-stock-service": "OpenJDK 17: about 80 s of image build, then a JVM service and javac in its tests",
}
"""Fixture -> why CI does not validate it."""
LIGHT = [name for name in FIXTURES if name not in HEAVY]
FILES = ["environment/Dockerfile", "solution/solve.sh", "tests/test.sh", "tests/test_outputs.py"]


def grow_foreign() -> ModuleType:
    """scripts/grow_foreign.py, imported by path (scripts/ is not a package)."""
    path = REPO / "scripts" / "grow_foreign.py"
    spec = importlib.util.spec_from_file_location("grow_foreign", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_eight_fixtures_each_light_or_heavy() -> None:
    assert len(FIXTURES) == 8
    assert set(HEAVY) <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_keeps_the_terminal_bench_2_shape(name: str) -> None:
    task = Task.load(TB2 / name)
    assert all(rel in task.files for rel in FILES), sorted(task.files)
    assert (TB2 / name / "instruction.md").read_text().strip()
    config = task.config
    assert config.schema_version == "1.0" and config.task is None  # TB2's `version = "1.0"`, no [task] table
    assert config.agent.timeout_sec is not None and config.verifier.timeout_sec > 0
    assert config.environment.cpus and config.environment.memory_mb
    assert config.environment.network_mode == "no-network"
    assert task.dockerfile.startswith(BASE_DOCKERFILE)  # the python3 + pytest layer the seeds cache
    test_sh = task.text("tests/test.sh")
    assert re.search(r"^python3 -m pytest /tests/test_outputs\.py -rA$", test_sh, re.M)
    assert "echo 1 > /logs/verifier/reward.txt" in test_sh and "echo 0 > /logs/verifier/reward.txt" in test_sh


@pytest.mark.docker
@pytest.mark.slow  # about 40 s with the base layers cached, a minute when the g++ layer is built
def test_light_fixtures_validate() -> None:
    tasks = [Task.load(TB2 / name) for name in LIGHT]

    async def work(sandbox):  # type: ignore[no-untyped-def]
        validator = Validator(sandbox, ValidatorConfig(determinism_runs=0, quality=False))
        return await asyncio.gather(*(validator.validate(task) for task in tasks))

    reports = run_async(work)
    problems = {
        name: (report.first_failure.check.value, report.first_failure.reason.value, report.first_failure.output_tail)
        for name, report in zip(LIGHT, reports, strict=True)
        if report.first_failure is not None
    }
    assert not problems
    for report in reports:
        assert report.accepted
        assert report.result_of("oracle").reward == 1 and report.result_of("nop").reward == 0


def row(task_id: str, round_: int, parent: str | None, root: str, steps: list[str]) -> TaskRow:
    return TaskRow(id=task_id, name=task_id, round=round_, parent_id=parent, root_id=root, path=task_id, steps=steps)


def test_growth_table_follows_each_lineage(tmp_path: Path) -> None:
    script = grow_foreign()
    store = Store(tmp_path / "run.db")
    for seed in ("alpha", "beta", "gamma"):
        store.add_candidate(f"r00-{seed}", 0, None, 0)
    store.accept("r00-alpha", row("alpha", 0, None, "alpha", []), b"", b"")
    store.accept("r00-beta", row("beta", 0, None, "beta", []), b"", b"")
    store.reject_candidate("r00-gamma", Check.ORACLE, Reason.TESTS_FAILED, "reward 0 after the reference solution")
    store.add_candidate("r01-alpha-0", 1, "alpha", 1)
    store.accept("r01-alpha-0", row("alpha-r1", 1, "alpha", "alpha", ["c-build-tool", "policy"]), b"", b"")
    store.add_candidate("r02-alpha-r1-0", 2, "alpha-r1", 2)
    store.accept("r02-alpha-r1-0", row("alpha-r2", 2, "alpha-r1", "alpha", ["db-report"]), b"", b"")
    store.add_candidate("r01-beta-0", 1, "beta", 1)
    store.reject_candidate(
        "r01-beta-0", Check.PROPOSE, Reason.NO_APPLICABLE_OPERATOR, "no operator applies to the artifacts of beta"
    )

    lineages = script.lineages(store, ["alpha", "beta", "gamma"], 2)
    store.close()
    alpha, beta, gamma = lineages
    assert alpha.rounds == [["c-build-tool", "policy"], ["db-report"]] and alpha.ended is None
    assert beta.rounds == [] and beta.ended.startswith("round 1: propose: no_applicable_operator")
    assert not gamma.seed_accepted and gamma.ended.startswith("oracle: tests_failed")
    lines = script.table(lineages, 2).splitlines()
    assert lines[2] == "| alpha | accepted | 2/2 | c-build-tool + policy | db-report | no |"
    assert lines[3].startswith("| beta | accepted | 0/2 | - | - | round 1: propose: no_applicable_operator")
    assert lines[4].startswith("| gamma | REJECTED | 0/2 | - | - | oracle: tests_failed")
