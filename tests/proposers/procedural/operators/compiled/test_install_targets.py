"""make-install-targets: preconditions, determinism, and a child accepted against a small C project."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.compiled import install_targets  # noqa: F401  (registers the operator)
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

MAKEFILE = """CC = gcc
CFLAGS = -Wall -O2
.RECIPEPREFIX = >
OBJS = build/main.o build/sum.o

tally: $(OBJS)
> $(CC) -o $@ $^

build/%.o: src/%.c src/sum.h | build
> $(CC) $(CFLAGS) -c $< -o $@

build:
> mkdir -p build
"""
MAIN_C = '#include <stdio.h>\n#include "sum.h"\nint main(void) { printf("%d\\n", sum(20, 22)); return 0; }\n'
SUM_C = '#include "sum.h"\nint sum(int a, int b) { return a + b; }\n'
SUM_H = "int sum(int a, int b);\n"
PARENT_SOLVE = f"""mkdir -p /app/src
cat > /app/src/main.c <<'C'
{MAIN_C}C
cat > /app/src/sum.c <<'C'
{SUM_C}C
cat > /app/src/sum.h <<'C'
{SUM_H}C
cat > /app/Makefile <<'MAKE'
{MAKEFILE}MAKE
make -C /app
"""
C_DOCKERFILE = BASE_DOCKERFILE + (
    "RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev make"
    " && rm -rf /var/lib/apt/lists/*\n"
)


def artifacts(makefile: str = MAKEFILE) -> list[Artifact]:
    kind, details, sample = classify("/app/Makefile", makefile.encode())
    return [
        Artifact(path="/app/Makefile", kind=kind, size=len(makefile), details=details, sample=sample, new=False),
        Artifact(path="/app/tally", kind=Kind.EXECUTABLE, size=16000, executable=True),
    ]


def discovery(found: list[Artifact], tools: tuple[str, ...] = ("make", "python3")) -> Discovery:
    return Discovery(workdir="/app", artifacts=found, tools=list(tools))


def test_it_applies_to_a_program_its_makefile_builds() -> None:
    op, found = OPERATORS["make-install-targets"], artifacts()
    assert op.can_use(found[1], discovery(found))
    assert not op.can_use(found[1], discovery(found[1:]))  # no Makefile beside it
    installed = artifacts(MAKEFILE + "install: tally\n> cp tally /usr/local/bin\n")
    assert not op.can_use(installed[1], discovery(installed))  # an install target exists already
    prefixed = artifacts("PREFIX = /opt\n" + MAKEFILE)
    assert not op.can_use(prefixed[1], discovery(prefixed))
    other = artifacts(MAKEFILE.replace("tally:", "tool:"))
    assert not op.can_use(other[1], discovery(other))  # the Makefile has no rule for this program
    assert not op.can_use(found[1], discovery(found, tools=()))  # no make and no apt-get
    given = [found[0].model_copy(update={"input": True, "new": False}), found[1]]
    assert not op.can_use(given[1], discovery(given))  # the task's own Makefile is an input: not ours to change
    assert not op.bookkeeping and op.fit(found[1], discovery(found)) >= 3.0


def test_build_is_deterministic_and_states_every_path() -> None:
    op, found = OPERATORS["make-install-targets"], artifacts()
    steps = [
        op.step(found[1], StepContext(discovery=discovery(found), rng=random.Random(4), tag="r1s1")) for _ in range(2)
    ]
    assert steps[0] == steps[1]
    step = steps[0]
    compile(step.tests, "t", "exec")
    for path in ("/app/Makefile", "/app/tally", "/app"):
        assert f"`{path}`" in step.instruction, path
    for rule in ("DESTDIR", "PREFIX", "/usr/local", "0755", "uninstall", "fresh checkout", "without rebuilding"):
        assert rule in step.instruction, rule
    assert "install: tally" in step.solution and step.produces == []


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, PARENT_SOLVE, dockerfile=C_DOCKERFILE)
    proposal, report = extend_with("make-install-targets", parent)
    assert_accepted(proposal, report, "make-install-targets")
    assert report.figures.kill_rate is not None and report.figures.kill_rate > 0
