"""c-link-map: where it applies (a C program of several sources), a deterministic step that states its rules,
the reference on generated projects against the map they were written to give, the generated tests on the
step's own tool (and on tools that miss zero-initialised data or keep `main` as a candidate), and
an accepted child."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.compiled.shipped import link_map as shipped
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import MAIN_C, TALLY_H, built_locally, c_discovery, c_parent, local_parent
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-link-map"
TOOL = "/app/bin/tally_link_map"
OUT = "/app/linkmap/tally_map.json"


def build(seed: int = 0) -> Step:
    program, found = c_discovery()
    return OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(seed), tag="r6s2"))


def test_it_applies_to_a_program_of_several_sources() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.once and op.final and op.weight > 1
    assert not op.can_use(*c_discovery(sources={"/app/src/main.c": MAIN_C, "/app/src/tally.h": TALLY_H}))


def test_build_is_deterministic_and_states_its_rules() -> None:
    step = build()
    assert step == build() and step != build(1)
    compile(step.tests, "t", "exec")
    for path in (TOOL, OUT, "/app/src/main.c", "/app/src/tally.c", "/tmp/linkmap/tally/"):
        assert f"`{path}`" in step.instruction, path
    assert "gcc -std=c11 -c -O0 -fno-common -fno-builtin -fno-stack-protector -I/app/src" in step.instruction
    for rule in ("`static_candidates`", "`unresolved`", "`main` left out", "exit 2"):
        assert rule in step.instruction, rule
    assert leaked_solution_line(step.instruction, step.solution) is None


@pytest.mark.skipif(not built_locally(), reason="needs gcc and nm")
def test_reference_gives_the_map_generated_projects_were_written_to_give(tmp_path: Path) -> None:
    for k in range(10):
        folder = tmp_path / str(k)
        folder.mkdir()
        sources, want = shipped.random_project(random.Random(k), folder)
        assert shipped.link_map(shipped.compile_all(sources, folder / "obj", [], "-std=c11")) == want, k
        assert want["unresolved"] and want["static_candidates"] and any(e["used_by"] for e in want["symbols"].values())


@pytest.mark.skipif(not built_locally(), reason="needs gcc, make and nm")
@pytest.mark.parametrize(
    "wrong",
    [
        ('kind in "TDBRCGSVW"', 'kind in "TDRCGSVW"'),  # zero-initialised data taken for undefined
        ('not e["used_by"] and n != "main"', 'not e["used_by"]'),  # main kept as a candidate
    ],
)
def test_generated_tests_pass_on_the_tool_and_fail_on_a_subtly_wrong_one(
    tmp_path: Path, wrong: tuple[str, str]
) -> None:
    local = LocalStep(build(), tmp_path / "root", folders=("/app", "/tmp/linkmap"))
    local_parent(local)
    local.solve()
    report = json.loads(local.path(OUT).read_text())
    assert report["static_candidates"] == ["tally_square"]  # defined in tally.c, declared in no header
    assert report["symbols"]["tally_file"] == {"kind": "function", "defined_in": "tally.o", "used_by": ["main.o"]}
    assert {"fopen", "printf", "sqrt"} <= set(report["unresolved"])
    assert len(local.run_tests(tmp_path / "t")) == 3
    local.assert_caught(TOOL, wrong, tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
