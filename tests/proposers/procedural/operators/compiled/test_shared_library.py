"""c-shared-library: where it applies, a deterministic step that states what it tests, the ELF facts
discovery reads, and a child accepted against a small C project."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.compiled import shared_library  # noqa: F401  (registers the operator)
from rst_synth.proposers.procedural.operators.compiled.project import c_project
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import (
    MAIN_C,
    SOURCES,
    TALLY_C,
    TALLY_H,
    built_locally,
    c_discovery,
    c_parent,
    local_parent,
)
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-shared-library"


def test_the_project_of_a_program() -> None:
    program, found = c_discovery()
    project = c_project(program, found)
    assert project is not None
    assert project.main == "/app/src/main.c" and project.sources == ("/app/src/tally.c",)
    assert project.headers == ("/app/src/tally.h",) and project.libraries == ("-lm",)
    assert project.inputs == ("/app/data/numbers.txt",) and project.makefile == "/app/Makefile"
    assert project.std == "-std=c11" and not project.cxx and project.relative_sources("/app/libtally") == "../src"
    planted = program.model_copy(update={"path": "/app/incoming/r6s1/money-cli"})
    assert c_project(planted, found) is None  # an earlier step's driver, beside no source of its own
    other = program.model_copy(update={"path": "/app/other"})
    assert c_project(other, found) is None  # neither main's name nor a target of the Makefile
    assert c_project(program.model_copy(update={"path": "/app/libtally/bin/tally"}), found) is not None


def test_it_applies_to_a_program_whose_sources_are_known() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.fit(program, found) >= 3.0
    only_main = {"/app/src/main.c": MAIN_C, "/app/src/tally.h": TALLY_H}
    assert not op.can_use(*c_discovery(sources=only_main))  # nothing beside main to make a library of
    two_mains = {**SOURCES, "/app/src/check.c": "int main(void) { return 0; }\n"}
    assert not op.can_use(*c_discovery(sources=two_mains))  # a test driver beside main: which program?
    script = Artifact(path="/app/tally", kind=Kind.EXECUTABLE, executable=True, sample="#!/bin/sh\n")
    assert not op.can_use(script, c_discovery()[1])
    shared = Artifact(path="/app/libtally/lib/libtally.so.1.0", kind=Kind.LIBRARY, details={"soname": "libtally.so.1"})
    relinked = {"elf": "shared", "interp": True, "needed": ["libtally.so.1", "libc.so.6"]}
    assert not op.can_use(*c_discovery(details=relinked, extra=[shared]))  # split already


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    steps = [
        op.step(program, StepContext(discovery=found, rng=random.Random(3), tag="r1s1", taken_paths=found.paths()))
        for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, "t", "exec")
    for path in ("/app/libtally", "/app/libtally/Makefile", "/app/src", "/app/src/main.c", "/app/src/tally.c"):
        assert f"`{path}`" in step.instruction, path
    for path in ("/app/src/tally.h", "/app/tally", "/app/data/numbers.txt", "/usr/local"):
        assert f"`{path}`" in step.instruction, path
    for rule in ("SONAME", "RUNPATH", "$ORIGIN/../lib", "DESTDIR", "byte for byte", "make -q", "-lm"):
        assert rule in step.instruction, rule
    assert leaked_solution_line(step.instruction, step.solution) is None
    kinds = sorted(a.kind for a in step.produces)
    assert kinds == [Kind.EXECUTABLE, Kind.LIBRARY, Kind.LIBRARY]
    assert "ar rcs" in step.solution and "-Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib'" in step.solution


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_discovery_reads_libraries_and_programs(tmp_path: Path) -> None:
    for name, text in (("main.c", MAIN_C), ("tally.c", TALLY_C), ("tally.h", TALLY_H)):
        (tmp_path / name).write_text(text)

    def run(*command: str) -> None:
        subprocess.run(command, cwd=tmp_path, check=True, capture_output=True)

    run("gcc", "-fPIC", "-c", "tally.c", "main.c")
    run("gcc", "-shared", "-Wl,-soname,libtally.so.1", "-o", "libtally.so.1.2.0", "tally.o", "-lm")
    run("ar", "rcs", "libtally.a", "tally.o")
    run("ln", "-s", "libtally.so.1.2.0", "libtally.so")
    run("gcc", "-o", "tally", "main.o", "-L.", "-ltally", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib")
    shared = classify("/x/libtally.so.1.2.0", (tmp_path / "libtally.so.1.2.0").read_bytes())
    assert shared[0] is Kind.LIBRARY and shared[1]["soname"] == "libtally.so.1" and "libm.so.6" in shared[1]["needed"]
    static = classify("/x/libtally.a", (tmp_path / "libtally.a").read_bytes())
    assert static[0] is Kind.LIBRARY and static[1] == {"format": "static", "members": ["tally.o"]}
    assert classify("/x/tally.o", (tmp_path / "tally.o").read_bytes())[0] is Kind.BINARY
    kind, details, _ = classify("/x/tally", (tmp_path / "tally").read_bytes(), executable=True)
    assert kind is Kind.EXECUTABLE and details["interp"] and details["runpath"] == "$ORIGIN/../lib"
    assert details["needed"][0] == "libtally.so.1"


@pytest.mark.skipif(not built_locally(), reason="needs gcc and make")
def test_checks_pass_for_the_split_and_fail_for_a_static_link(tmp_path: Path) -> None:
    program, found = c_discovery()
    step = OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(1), tag="r1s1"))
    local = LocalStep(step, tmp_path / "root")
    local_parent(local)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 4
    makefile = local.path("/app/libtally/Makefile")
    makefile.write_text(makefile.read_text().replace("$< -Llib -ltally", "$< lib/libtally.a"))
    subprocess.run(["make", "-C", str(makefile.parent), "-B"], check=True, capture_output=True)
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="relinked_program")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
