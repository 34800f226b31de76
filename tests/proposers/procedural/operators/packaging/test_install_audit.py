"""python-install-audit: where it applies (an installed RECORD), the verification of a faked install, a
deterministic step that names its paths, its generated tests on its own tool (and on one that skips the
existence check), and a child accepted against a parent that installs a package."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import install_audit as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_plugin_distribution import PARENT_INSTALL
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import PIP_DOCKERFILE
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-install-audit"]
RECORD = "/usr/local/lib/python3.11/dist-packages/textstats-0.3.0.dist-info/RECORD"


def artifact(path: str = RECORD) -> Artifact:
    return Artifact(path=path, kind=Kind.TEXT, sample="textstats.py,sha256=x,10\n")


def build(seed: int = 2) -> Step:
    found = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    return OP.step(artifact(), StepContext(discovery=found, rng=random.Random(seed), tag="r6s1"))


def test_it_applies_to_an_installed_record_only() -> None:
    found = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    assert OP.can_use(artifact(), found) and OP.once and OP.final
    assert not OP.can_use(artifact("/app/project/textstats.egg-info/RECORD"), found)


def test_verification_of_a_faked_install(tmp_path: Path) -> None:
    info = shipped.fake_install(tmp_path, random.Random(0))
    problems = shipped.verify(info)
    assert problems and all(re.fullmatch(r"(missing|modified) \S.*", p) for p in problems), problems
    clean = shipped.fake_install(tmp_path / "clean", random.Random(5))
    assert isinstance(shipped.verify(clean), list)


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/(?:app|usr)/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/usr/local/lib/python3.11/dist-packages/textstats-0.3.0.dist-info",
        "/app/bin/textstats_0_3_0_verify_install",
        "/app/audit/textstats_0_3_0_install.txt",
    }
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_tool_and_fail_when_missing_files_pass(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path, folders=("/app", "/usr/local"))
    fake = shipped.fake_install(tmp_path / "fake", random.Random(1))
    info = local.path("/usr/local/lib/python3.11/dist-packages/textstats-0.3.0.dist-info")
    info.parent.mkdir(parents=True)
    fake.rename(info)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/textstats_0_3_0_verify_install")
    source = tool.read_text()
    tool.write_text(source.replace("if not os.path.isfile(path):", "if not os.path.exists(path) and False:"))
    assert tool.read_text() != source
    with pytest.raises(AssertionError):  # the tool crashes on the missing file: its output is wrong
        local.run_tests(tmp_path / "wrong", only="faked")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, PARENT_INSTALL, dockerfile=PIP_DOCKERFILE)
    (parent / "instruction.md").write_text(
        "Build and install the package; it lands in `/usr/local/lib/python3.11/dist-packages/`.\n"
    )
    proposal, report = extend_with("python-install-audit", parent)
    assert_accepted(proposal, report, "python-install-audit")
