"""c-build-variants: where it applies, a deterministic step that states what it tests, its checks run on
this machine (passing for the step's Makefile, failing for one whose variants share their objects), and
an accepted child."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import built_locally, c_discovery, c_parent, local_parent
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-build-variants"


def test_it_applies_to_a_program_with_known_sources_once() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.fit(program, found) >= 3.0
    library = Artifact(path="/app/libtally/lib/libtally.so.1.0", kind=Kind.LIBRARY, details={"soname": "libtally.so.1"})
    relinked = {"elf": "shared", "interp": True, "needed": ["libtally.so.1", "libc.so.6"], "runpath": "$ORIGIN/../lib"}
    assert not op.can_use(*c_discovery(details=relinked, extra=[library]))  # the same code again
    assert not op.can_use(*c_discovery(sources={}))


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    steps = [
        op.step(program, StepContext(discovery=found, rng=random.Random(1), tag="r2s2", taken_paths=found.paths()))
        for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, "t", "exec")
    for path in ("/app/tally-variants/Makefile", "/app/src", "/app/tally", "/app/data/numbers.txt"):
        assert f"`{path}`" in step.instruction, path
    for rule in ("`-O0 -g`", "-fsanitize=address,undefined", "`make -q`", "PASS FILE", "REFERENCE", "CHECK_INPUTS"):
        assert rule in step.instruction, rule
    assert leaked_solution_line(step.instruction, step.solution) is None
    assert "-MMD -MP" in step.solution and "$(error unknown BUILD" in step.solution


@pytest.mark.skipif(not built_locally(), reason="needs gcc and make")
def test_checks_pass_for_the_makefile_and_fail_when_variants_share_objects(tmp_path: Path) -> None:
    program, found = c_discovery()
    step = OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(1), tag="r1s1"))
    local = LocalStep(step, tmp_path / "root")
    local_parent(local)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 4
    makefile = local.path("/app/tally-variants/Makefile")
    makefile.write_text(makefile.read_text().replace("$(OUT)/obj/", "obj/"))
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="apart")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
