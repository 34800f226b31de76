"""python-version-bump: where it applies (a project whose version is known whole, static or in a module),
a deterministic step that states its rules, the reference's bump rules and its decoys, the generated tests on
the step's own tool (and on tools that ignore pre-releases or the table a `version` line is in), and a child
accepted against a parent that builds a wheel."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import version_bump as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import PARENT_SOLVE, PIP_DOCKERFILE
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-version-bump"]
TOOL = "/app/bin/pyproject_version_bump"
DYNAMIC = """[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "textstats"
dynamic = ["version"]

[project.scripts]
textstats = "textstats:main"

[tool.setuptools]
py-modules = ["textstats"]

[tool.setuptools.dynamic]
version = { attr = "textstats.__version__" }
"""
MODULE = '"""Word statistics."""\nimport re\n\n__version__ = "0.3.0"\n\n\ndef main(argv=None):\n    return 0\n'


def artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(pyproject: str = DYNAMIC, *extra: Artifact) -> tuple[Artifact, Discovery]:
    project = artifact("/app/project/pyproject.toml", pyproject)
    return project, Discovery(workdir="/app", artifacts=[project, *extra], tools=["python3"])


def build(seed: int = 0) -> Step:
    project, found = discovery(DYNAMIC, artifact("/app/project/textstats.py", MODULE))
    return OP.step(project, StepContext(discovery=found, rng=random.Random(seed), tag="r7s1"))


def test_it_applies_where_the_version_is_known() -> None:
    assert OP.can_use(*discovery(DYNAMIC, artifact("/app/project/textstats.py", MODULE)))
    assert OP.once and OP.final and OP.weight > 1
    assert not OP.can_use(*discovery(DYNAMIC))  # the module holding the version is not known
    static = '[project]\nname = "textstats"\nversion = "0.3.0"\n'
    assert OP.can_use(*discovery(static))
    assert not OP.can_use(*discovery(static.replace("0.3.0", "1!0.3.0")))  # an epoch: no stated rule bumps it
    assert not OP.can_use(*discovery('[project]\nname = "textstats"\n'))


def test_build_is_deterministic_and_states_its_rules() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    for path in (TOOL, "/app/project", "/tmp/release/textstats-next", "/app/release/textstats_bump.json"):
        assert f"`{path}`" in step.instruction, path
    for rule in ("`1.3.0rc1` by `minor` or `patch` gives `1.3.0`", "`src/MODULE/__init__.py`", "exit 2"):
        assert rule in step.instruction, rule


@pytest.mark.parametrize(
    ("old", "part", "new"),
    [
        ("1.3.0rc1", "minor", "1.3.0"),
        ("1.3.0rc1", "patch", "1.3.0"),
        ("1.3.1rc1", "minor", "1.4.0"),
        ("2.0.0b1", "major", "2.0.0"),
        ("2.1.0b1", "major", "3.0.0"),
        ("1.2.3.post1", "patch", "1.2.4"),
        ("1.4", "minor", "1.5.0"),
        ("1.0.dev1", "patch", "1.0.0"),
        ("0.3.0", "major", "1.0.0"),
    ],
)
def test_bump_rules(old: str, part: str, new: str) -> None:
    assert shipped.bumped(old, part) == new


def test_reference_skips_the_decoys(tmp_path: Path) -> None:
    rng = random.Random(4)
    seen = set()
    for k in range(30):
        folder = tmp_path / str(k)
        folder.mkdir()
        shipped.random_project(rng, folder)
        before = shipped.files_of(folder)
        found = shipped.bump(folder, "patch")
        after = shipped.files_of(folder)
        assert [n for n in before if before[n] != after[n]] == [found["file"]]
        assert b'version = "9.9.9"' in after["pyproject.toml"]  # another table's version stays
        if found["file"].endswith("meta.py"):  # the package's own version is not the one named
            assert b'"0.0.0"' in after[found["file"].replace("meta.py", "__init__.py")]
        seen.add(found["file"])
    assert {"pyproject.toml", "demo_mod.py", "src/demo_pkg/meta.py"} <= seen
    for bad in ("1!2.0", "1.2+local", "1.2.3.4"):
        with pytest.raises(ValueError):
            shipped.bumped(bad, "minor")


@pytest.mark.parametrize(
    "wrong",
    [
        ("if not (unreleased and all(n == 0 for n in numbers[at + 1 :])):", "if True:"),  # pre-releases bumped past
        ('elif table == "[project]" and re.match', "elif re.match"),  # another table's version line taken
    ],
)
def test_generated_tests_pass_on_the_tool_and_fail_on_a_subtly_wrong_one(
    tmp_path: Path, wrong: tuple[str, str]
) -> None:
    local = LocalStep(build(), tmp_path / "root", folders=("/app", "/tmp/release"))
    local.put("/app/project/pyproject.toml", DYNAMIC)
    local.put("/app/project/textstats.py", MODULE)
    local.solve()
    assert local.path("/app/project/textstats.py").read_text() == MODULE  # the copy is bumped, not the project
    assert '__version__ = "0.3.0"' not in local.path("/tmp/release/textstats-next/textstats.py").read_text()
    assert len(local.run_tests(tmp_path / "t")) == 3
    local.assert_caught(TOOL, wrong, tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE)
    proposal, report = extend_with("python-version-bump", parent)
    assert_accepted(proposal, report, "python-version-bump")
