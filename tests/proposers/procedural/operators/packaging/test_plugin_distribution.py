"""python-plugin-distribution: where it applies, a deterministic step that names its paths, its generated
tests on its own solution (pip builds and installs the wheels: slow), and a child accepted against a parent
that builds and installs a package."""

from __future__ import annotations

import os
import random
import re
import sys
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_audit
from tests.proposers.local_step import LocalStep
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


def base_wheel(path: Path) -> None:
    """The project's wheel as its parent built it: the module and the dist-info pip needs to install it."""
    info = "text_stats-0.3.0.dist-info"
    files = {
        "textstats.py": b"def count(text):\n    return len(text.split())\n",
        info + "/METADATA": b"Metadata-Version: 2.1\nName: text-stats\nVersion: 0.3.0\n",
        info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[info + "/RECORD"] = wheel_audit.record_of(files, info)
    path.parent.mkdir(parents=True)
    wheel_audit.write_wheel(path, files)


@pytest.mark.slow
def test_generated_tests_pass_on_the_solution_and_fail_on_a_stale_wheel(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    base_wheel(local.path(WHEEL))
    python = tmp_path / "python"  # the solution's python3 is the one the tests run pip with, as in a task
    python.mkdir()
    (python / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')  # a link would leave the venv
    (python / "python3").chmod(0o755)
    local.solve(env={"PATH": f"{python}{os.pathsep}{local.env['PATH']}"})
    assert len(local.run_tests(tmp_path / "t")) == 3
    source = local.path("/app/plugins/text-stats-digest/text_stats_digest.py")
    source.write_text(source.read_text().replace("return 3", "return 4"))
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "stale", only="sources")
    wheel = local.path("/app/plugins/dist/text_stats_digest-0.1.0-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as built:
        assert b"return 3" in built.read("text_stats_digest.py")


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
