"""c-library-abi: it applies to a split's shared library of C code, a deterministic step that states
what it tests, its checks run on this machine (passing after the split and the step, failing for a
version script that exports everything), and an accepted child of a split."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import built_locally, c_discovery, c_parent, local_parent
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-library-abi"
LIBRARY = Artifact(
    path="/app/libtally/lib/libtally.so.2.1.0",
    kind=Kind.LIBRARY,
    details={"format": "shared", "soname": "libtally.so.2", "needed": ["libm.so.6", "libc.so.6"]},
)
RELINKED = {"elf": "shared", "interp": True, "needed": ["libtally.so.2", "libc.so.6"], "runpath": "$ORIGIN/../lib"}


def split() -> tuple[Artifact, list[Artifact]]:
    """The relinked program and the library of an earlier split, beside the parent's files."""
    program = Artifact(path="/app/libtally/bin/tally", kind=Kind.EXECUTABLE, executable=True, details=RELINKED)
    return program, [program, LIBRARY]


def test_it_applies_to_a_split_library_of_c_code() -> None:
    op = OPERATORS[OP]
    _, extra = split()
    found = c_discovery(extra=extra)[1]
    assert op.can_use(LIBRARY, found) and op.fit(LIBRARY, found) >= 3.0
    assert not op.can_use(LIBRARY, c_discovery()[1])  # no program of the project loads it
    static = Artifact(path="/app/libtally/lib/libtally.a", kind=Kind.LIBRARY, details={"format": "static"})
    assert not op.can_use(static, found)


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS[OP]
    _, extra = split()
    found = c_discovery(extra=extra)[1]
    steps = [op.step(LIBRARY, StepContext(discovery=found, rng=random.Random(0), tag="r3s1")) for _ in range(2)]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, "t", "exec")
    for path in (
        LIBRARY.path,
        "/app/libtally3",
        "/app/libtally3/libtally.map",
        "/app/src/tally.c",
        "/app/libtally/bin/tally",
    ):
        assert f"`{path}`" in step.instruction, path
    for rule in ("`TALLY_3`", "`libtally.so.3`", "local: *;", "$ORIGIN/../lib", "`make -q`"):
        assert rule in step.instruction, rule
    assert leaked_solution_line(step.instruction, step.solution) is None
    assert "--version-script=libtally.map" in step.solution and " -lm" in step.solution


def split_step():  # type: ignore[no-untyped-def]
    """The c-shared-library step an ABI step builds on (the tally project, libtally.so.2)."""
    program, found = c_discovery()
    return OPERATORS["c-shared-library"].step(program, StepContext(discovery=found, rng=random.Random(1), tag="r1s1"))


@pytest.mark.skipif(not built_locally(), reason="needs gcc and make")
def test_checks_pass_for_the_script_and_fail_when_it_exports_everything(tmp_path: Path) -> None:
    first = split_step()
    library = next(a for a in first.produces if a.details.get("format") == "shared")
    library.details["needed"] = ["libm.so.6", "libc.so.6"]
    found = c_discovery(extra=first.produces)[1]
    step = OPERATORS[OP].step(library, StepContext(discovery=found, rng=random.Random(1)))
    parent, local = LocalStep(first, tmp_path / "root"), LocalStep(step, tmp_path / "root")
    local_parent(parent)
    parent.solve()
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    script = next(local.path("/app").glob("libtally?/libtally.map"))
    assert "tally_square" not in script.read_text()  # a helper no header declares stays hidden
    script.write_text(script.read_text().split("{")[0] + "{\n  global:\n    *;\n};\n")
    subprocess.run(["make", "-C", str(script.parent)], check=True, capture_output=True)
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="api")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path, then=split_step().solution))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
