"""python-plugin-distribution: where it applies, a deterministic step that names its paths, and a child
accepted against a parent that builds and installs a package (the step's tests build and install wheels
with pip, which this machine's Python need not have, so they run in the real engine only)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import (
    PARENT_SOLVE,
    PIP_DOCKERFILE,
    WHEEL,
    pyproject,
)
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-plugin-distribution"]
METADATA = "/usr/local/lib/python3.11/dist-packages/text_stats-0.3.0.dist-info/METADATA"


def discovery(*extra: Artifact, installed: bool = True) -> Discovery:
    found = [pyproject(), Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"}), *extra]
    if installed:
        found.append(Artifact(path=METADATA, kind=Kind.TEXT))
    return Discovery(workdir="/app", artifacts=found, tools=["python3"])


def build(seed: int = 1) -> Step:
    return OP.step(pyproject(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r3s1"))


def test_it_applies_to_an_installed_package_with_a_wheel() -> None:
    assert OP.can_use(pyproject(), discovery())
    assert not OP.can_use(pyproject(), discovery(installed=False))
    done = Artifact(
        path="/usr/local/lib/python3.11/dist-packages/text_stats_digest-0.1.0.dist-info/RECORD", kind=Kind.TEXT
    )
    assert not OP.can_use(pyproject(), discovery(done))


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/app/plugins/dist/text_stats_digest-0.1.0-py3-none-any.whl",
        "/app/plugins/text-stats-digest",
        "/app/plugins/text-stats-digest/pyproject.toml",
        "/app/dist",
    }
    assert all(re.search(re.escape(p) + r"(?![\w.-])", step.instruction) for p in paths), step.instruction
    assert 'dependencies = ["text-stats==0.3.0"]' in step.solution
    assert '[project.entry-points."text_stats.plugins"]' in step.solution


PARENT_INSTALL = (
    PARENT_SOLVE
    + "python3 -m pip install --no-index --break-system-packages -q /app/dist/textstats-0.3.0-py3-none-any.whl\n"
)


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(
        "python-plugin-distribution", parent_task(tmp_path, PARENT_INSTALL, dockerfile=PIP_DOCKERFILE)
    )
    assert_accepted(proposal, report, "python-plugin-distribution")
