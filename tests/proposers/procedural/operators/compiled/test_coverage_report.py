"""c-coverage-report: where it applies, a deterministic step that states what it tests, its check run on
this machine (passing for gcov's counts, failing for a report that truncates the percentages), and an
accepted child."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import MAIN_C, TALLY_H, built_locally, c_discovery, c_parent, local_parent
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-coverage-report"


def test_it_applies_to_a_program_with_sources_and_inputs() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.final
    assert not op.can_use(*c_discovery(sources={"/app/src/main.c": MAIN_C, "/app/src/tally.h": TALLY_H}))
    found.artifacts = [a for a in found.artifacts if a.path != "/app/data/numbers.txt"]
    assert not op.can_use(program, found)  # no input: only the usage message would run


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    step = op.step(program, StepContext(discovery=found, rng=random.Random(0), tag="r1s1"))
    assert step == op.step(program, StepContext(discovery=found, rng=random.Random(0), tag="r1s1"))
    compile(step.tests, "t", "exec")
    for path in ("/app/coverage/tally_coverage.csv", "/app/src/main.c", "/app/src/tally.c", "/app/data/numbers.txt"):
        assert f"`{path}`" in step.instruction, path
    assert leaked_solution_line(step.instruction, step.solution) is None
    for rule in ("-O0 --coverage", "gcov --json-format", "source,lines,executed,percent,functions,called"):
        assert rule in step.instruction, rule


@pytest.mark.skipif(not built_locally(), reason="needs gcc and make")
def test_check_passes_for_gcov_counts_and_fails_for_truncated_percentages(tmp_path: Path) -> None:
    program, found = c_discovery()
    step = OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(0), tag="r1s1"))
    local = LocalStep(step, tmp_path / "root")
    local_parent(local)
    local.solve()
    assert local.run_tests(tmp_path / "t") == ["test_r1s1_coverage_report"]
    report = local.path("/app/coverage/tally_coverage.csv")
    rows = list(csv.reader(report.open()))
    assert [r[0] for r in rows[1:]] == ["main.c", "tally.c"] and all(int(r[2]) > 0 for r in rows[1:])
    wrong = [rows[0]] + [[*r[:3], f"{int(r[2]) * 100 // int(r[1])}.00", *r[4:]] for r in rows[1:]]
    assert wrong != rows
    with report.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(wrong)
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
