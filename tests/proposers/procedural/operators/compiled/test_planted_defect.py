"""c-planted-defect: every planted module's queries reach each of its defects under the sanitizers, the
operator's preconditions, a deterministic step that states what it tests, and an accepted child."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.compiled.defect_modules import Module
from rst_synth.proposers.procedural.operators.compiled.planted_defect import MODULES, SANITIZE, queries_of
from rst_synth.task import HistoryStep
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import c_discovery, c_parent
from tests.support.operators import assert_accepted, extend_with

OP = "c-planted-defect"


def _answers(module: Module, source: str, folder: Path) -> tuple[int, list[str], list[str]]:
    """Build `source` with the module's driver under the sanitizers; its answers and the reference's."""
    (folder / f"{module.name}.h").write_text(module.header_file())
    (folder / f"{module.name}.c").write_text(source)
    (folder / "driver.c").write_text(module.driver)
    built = subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Werror", *SANITIZE, "-o", str(folder / "run")]
        + [str(folder / f"{module.name}.c"), str(folder / "driver.c"), "-lm"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-1500:]
    lines = queries_of(module, 7)
    done = subprocess.run([str(folder / "run")], input="".join(f"{x}\n" for x in lines).encode(), capture_output=True)
    reference = module.python.reference
    return done.returncode, done.stdout.decode(errors="replace").split("\n")[:-1], [reference(x) for x in lines]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_the_queries_reach_every_defect(module: Module, tmp_path: Path) -> None:
    assert "*/" not in module.contract
    status, got, want = _answers(module, module.source, tmp_path)
    assert status == 0 and got == want
    for defect in module.defects:
        status, got, want = _answers(module, module.planted(defect), tmp_path)
        assert status != 0 or got != want, defect


def test_it_applies_while_a_module_is_left() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.fit(program, found) >= 3.0
    fixed = [Artifact(path=f"/app/incoming/r{k}s1/{m.name}.c", kind=Kind.C_SOURCE) for k, m in enumerate(MODULES)]
    assert not op.can_use(*c_discovery(extra=fixed))  # every module planted and fixed already
    assert op.can_use(*c_discovery(extra=fixed[1:]))
    script = Artifact(path="/app/tally", kind=Kind.EXECUTABLE, executable=True, sample="#!/bin/sh\n")
    assert not op.can_use(script, found)


def test_build_is_deterministic_states_every_path_and_skips_planted_modules() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    history = [HistoryStep(name=OP, consumes=["/app/x"], produces=[f"/app/incoming/r1s1/{MODULES[0].name}.c"])]

    def step():  # type: ignore[no-untyped-def]
        ctx = StepContext(discovery=found, rng=random.Random(5), tag="r2s1", taken_paths=found.paths(), history=history)
        return op.step(program, ctx)

    first = step()
    assert first == step()
    compile(first.tests, "t", "exec")
    module = next(m for m in MODULES if f"/app/incoming/r2s1/{m.name}.c" in first.instruction)
    assert module is not MODULES[0]
    for name in (f"{module.name}.h", f"{module.name}.c", f"{module.name}_cli.c", "Makefile", "queries.txt"):
        assert f"/app/incoming/r2s1/{name}" in first.dockerfile or name in first.instruction
        assert f"`/app/incoming/r2s1/{name}`" in first.instruction, name
    assert f"`/app/out/{module.name}_answers.txt`" in first.instruction and module.contract in first.instruction
    assert module.source.strip() in first.solution and "-fsanitize=address,undefined" in first.instruction


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_no_solution_line_is_in_the_instruction(module: Module) -> None:
    program, found = c_discovery()
    others = [
        HistoryStep(name=OP, consumes=["/x"], produces=[f"/app/incoming/r0s{k}/{m.name}.c"])
        for k, m in enumerate(MODULES)
        if m is not module
    ]
    ctx = StepContext(discovery=found, rng=random.Random(0), tag="r9s1", taken_paths=found.paths(), history=others)
    step = OPERATORS[OP].step(program, ctx)
    assert f"/{module.name}.c" in step.consumes + step.solution
    assert leaked_solution_line(step.instruction, step.solution) is None


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
