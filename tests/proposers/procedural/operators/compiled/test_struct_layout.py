"""c-struct-layout: where it applies (a C program whose headers define structs the rules cover), a
deterministic step that states its rules, the reference against gcc on generated headers, the generated tests
on the step's own tool (and on tools that forget the tail padding or reorder by size), and an accepted child."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.compiled.shipped import struct_layout as shipped
from rst_synth.validator.static import leaked_solution_line
from tests.proposers.c_parents import SOURCES, TALLY_H, built_locally, c_discovery, c_parent, local_parent
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with

OP = "c-struct-layout"
TOOL = "/app/bin/tally_struct_layout"


def build(seed: int = 0) -> Step:
    program, found = c_discovery()
    return OPERATORS[OP].step(program, StepContext(discovery=found, rng=random.Random(seed), tag="r5s1"))


def test_it_applies_to_headers_that_define_structs_of_the_stated_types() -> None:
    op = OPERATORS[OP]
    program, found = c_discovery()
    assert op.can_use(program, found) and op.once and op.final and op.weight > 1
    plain = {**SOURCES, "/app/src/tally.h": "int tally_file(const char *path);\n"}
    assert not op.can_use(*c_discovery(sources=plain))  # no struct: nothing to lay out
    odd = {**SOURCES, "/app/src/tally.h": TALLY_H.replace("long count;", "FILE f; long count;")}
    assert not op.can_use(*c_discovery(sources=odd))  # a member type the rules leave out


def test_build_is_deterministic_and_states_its_rules() -> None:
    step = build()
    assert step == build() and step != build(1)
    compile(step.tests, "t", "exec")
    for text in (TOOL, "/app/src/tally.h", "/app/layout/tally_structs.json", "reordered_size", "`long double`"):
        assert f"`{text}`" in step.instruction or text in step.instruction, text
    assert "decreasing alignment" in step.instruction and "exit 2" in step.instruction
    assert leaked_solution_line(step.instruction, step.solution) is None


def test_reference_layout_of_a_known_struct() -> None:
    text = "/* x */\nstruct a { char c; double d; short s; };\ntypedef struct b { struct a in[2]; char *p, q; } b_t;\n"
    found = shipped.layout_of([("h.h", text)])
    assert found["a"]["size"] == 24 and found["a"]["padding"] == 13 and found["a"]["reordered_size"] == 16
    assert found["b"]["members"] == [
        {"name": "in", "offset": 0, "size": 48},
        {"name": "p", "offset": 48, "size": 8},
        {"name": "q", "offset": 56, "size": 1},
    ]
    assert found["b"]["size"] == 64 and found["b"]["align"] == 8
    for bad in ("struct a { int x; };\nstruct a { int y; };\n", "struct a { FILE f; };\n", "struct c { };\n"):
        with pytest.raises(ValueError):
            shipped.layout_of([("h.h", bad)])


@pytest.mark.skipif(not built_locally(), reason="needs gcc")
def test_reference_agrees_with_gcc_on_generated_headers(tmp_path: Path) -> None:
    for k in range(12):
        folder = tmp_path / str(k)
        folder.mkdir()
        text, structs = shipped.random_header(random.Random(k), f"t{k}")
        header = folder / "gen.h"
        header.write_text(text, encoding="utf-8")
        mine = shipped.layout([str(header)])
        shipped.assert_matches(mine, shipped.gcc_layout(header, structs, folder), mine)


@pytest.mark.skipif(not built_locally(), reason="needs gcc and make")
@pytest.mark.parametrize(
    "wrong",
    [
        ("return -(-offset // align) * align, align, offsets", "return offset, align, offsets"),  # no tail padding
        ("key=lambda m: -m[2]", "key=lambda m: -m[1]"),  # reordered by size, not alignment
    ],
)
def test_generated_tests_pass_on_the_tool_and_fail_on_a_subtly_wrong_one(
    tmp_path: Path, wrong: tuple[str, str]
) -> None:
    local = LocalStep(build(), tmp_path / "root")
    local_parent(local)
    local.solve()
    report = json.loads(local.path("/app/layout/tally_structs.json").read_text())
    assert report["tally"]["size"] == 24 and report["tally"]["padding"] == 0
    assert len(local.run_tests(tmp_path / "t")) == 3
    local.assert_caught(TOOL, wrong, tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(OP, c_parent(tmp_path))
    assert_accepted(proposal, report, OP)
