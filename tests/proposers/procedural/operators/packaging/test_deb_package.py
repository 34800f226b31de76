"""deb-package: where it applies (a dynamically linked program; one that loads a library of the lineage
only through a RUNPATH that puts it in /usr/lib), a deterministic step, and an accepted child."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.packaging.deb_package import package_name
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import c_discovery, c_parent
from tests.support.operators import assert_accepted, extend_with

OP = "deb-package"
LIBRARY = Artifact(
    path="/app/libtally/lib/libtally.so.2.1.0",
    kind=Kind.LIBRARY,
    details={"format": "shared", "soname": "libtally.so.2"},
)
RELINKED = {"elf": "shared", "interp": True, "needed": ["libtally.so.2", "libc.so.6"], "runpath": "$ORIGIN/../lib"}


def test_it_applies_to_dynamically_linked_programs() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.fit(program, found) >= 3.0
    assert op.can_use(*c_discovery(details=RELINKED, extra=[LIBRARY]))
    elsewhere = {**RELINKED, "runpath": "/opt/tally/lib"}
    assert not op.can_use(*c_discovery(details=elsewhere, extra=[LIBRARY]))  # where would the library go?
    assert not op.can_use(*c_discovery(details={"elf": "executable", "interp": False}))  # static: nothing to depend on
    script = Artifact(path="/app/tally", kind=Kind.EXECUTABLE, executable=True, sample="#!/bin/sh\n")
    assert not op.can_use(script, found)
    program.path = "/app/incoming/r1s1/tally"
    assert not op.can_use(program, found)  # a driver planted by an earlier step
    assert package_name("Tally_Tool") == "tally-tool" and package_name("x") == "x-tool"


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery(details=RELINKED, extra=[LIBRARY])
    program.path = "/app/libtally/bin/tally"
    steps = [
        op.step(program, StepContext(discovery=found, rng=random.Random(2), tag="r3s1", taken_paths=found.paths()))
        for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, "t", "exec")
    for path in ("/app/libtally/bin/tally", LIBRARY.path, "/usr/lib/libtally.so.2", "/app/data/numbers.txt"):
        assert f"`{path}`" in step.instruction, path
    assert "`/app/dist/tally_" in step.instruction and "dpkg --print-architecture" in step.instruction
    for rule in ("Installed-Size", "ceil(size / 1024)", "md5sums", "dpkg -S", "(>= VERSION)", "dpkg --verify"):
        assert rule in step.instruction, rule
    assert leaked_solution_line(step.instruction, step.solution) is None
    assert "program=/app/libtally/bin/tally" in step.solution and 'ldd "$program"' in step.solution
    assert "shipped=libtally.so.2" in step.solution


def test_a_program_made_earlier_in_the_same_child_ships_its_library() -> None:
    # The step before made the program and its library; discovery has seen neither yet.
    fresh = {
        **RELINKED,
        "needed": ["libtally.so.3", "libc.so.6"],
        "private": {"libtally.so.3": "/app/t3/lib/libtally.so.3.0.0"},
    }
    program, found = c_discovery(details=fresh)
    program.path = "/app/t3/bin/tally"
    assert OPERATORS[OP].can_use(program, found)
    assert not OPERATORS["c-shared-library"].can_use(program, found)  # split already
    step = OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(2), tag="r8s2"))
    assert "`/usr/lib/libtally.so.3.0.0`" in step.instruction and "libtally.so.3" in step.solution


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
