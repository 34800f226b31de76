"""python-api-compat: where it applies (a project whose wheel and modules are known), a deterministic step
that plants a candidate release and states its rules, the reference on known signature changes, the
generated tests on the step's own tool (and on tools that count private modules or refuse an over-bump),
and a child accepted against a parent that builds a wheel."""

from __future__ import annotations

import ast
import random
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import api_compat as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import (
    PARENT_SOLVE,
    PIP_DOCKERFILE,
    WHEEL,
    pyproject,
)
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-api-compat"]
TOOL = "/app/bin/pyproject_api_compat"
MODULE = '''"""Word statistics."""
import collections

__version__ = "0.3.0"


def words(text, *, lower=True):
    return text.lower().split() if lower else text.split()


def summarise(paths, top=10):
    counts = collections.Counter()
    for path in paths:
        counts.update(words(open(path).read()))
    return counts.most_common(top)


def _helper(x):
    return x


def main(argv=None):
    return 0
'''


def module(text: str = MODULE) -> Artifact:
    kind, details, sample = classify("/app/project/textstats.py", text.encode())
    return Artifact(path="/app/project/textstats.py", kind=kind, size=len(text), details=details, sample=sample)


def discovery(*extra: Artifact) -> Discovery:
    wheel = Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"})
    return Discovery(workdir="/app", artifacts=[pyproject(), wheel, *extra], tools=["python3"])


def build(seed: int = 3) -> Step:
    return OP.step(pyproject(), StepContext(discovery=discovery(module()), rng=random.Random(seed), tag="r6s1"))


def test_it_applies_to_a_project_with_a_wheel_and_public_functions() -> None:
    assert OP.can_use(pyproject(), discovery(module())) and OP.once and OP.final and OP.weight > 1
    assert not OP.can_use(pyproject(), discovery())  # no module: no API to compare
    assert not OP.can_use(pyproject(), discovery(module("def _only():\n    pass\n")))
    assert not OP.can_use(pyproject('[project]\nname = "other"\n'), discovery(module()))  # no wheel of it


def test_build_plants_a_candidate_and_states_its_rules() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    candidate = next(p for p in ("0.4.0", "1.0.0", "0.3.1") if f"text_stats-{p}-py3-none-any.whl" in step.dockerfile)
    for path in (TOOL, WHEEL, f"/app/incoming/r6s1/text_stats-{candidate}-py3-none-any.whl", "/app/release/"):
        assert path in step.instruction, path
    for rule in ("`signature`", "`extended`", "padded with zeros", "`*.data`", "exit 2"):
        assert rule in step.instruction, rule


def signature(text: str) -> ast.arguments:
    node = ast.parse(f"def f({text}):\n    pass\n").body[0]
    assert isinstance(node, ast.FunctionDef)
    return node.args


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("a, b=1", "a, b=1, c=2", "extended"),
        ("a, b=1", "a, b=1, *, c=None", "extended"),
        ("a", "a, *rest, **kw", "extended"),
        ("a, b=1", "a, b", "signature"),  # lost a default
        ("a, b", "b, a", "signature"),
        ("a", "a, c", "signature"),
        ("a, *, k=1", "a, *, k", "signature"),
        ("a, *, k=1", "a, k=1", "signature"),  # no longer keyword-only
        ("a, *, k=1", "a, *, k=1, m", "signature"),
        ("a, **kw", "a", "signature"),
        ("a, b=1", "a, b=1", None),
        ("a, /, b", "a, /, b", None),
    ],
)
def test_reference_on_signature_changes(old: str, new: str, kind: str | None) -> None:
    broke = shipped.breaks(signature(old), signature(new))
    found = "signature" if broke else "extended" if shipped.extends(signature(old), signature(new)) else None
    assert found == kind


def test_reference_on_a_pair_of_wheels(tmp_path: Path) -> None:
    old, new = tmp_path / "old.whl", tmp_path / "new.whl"
    shipped.wheel_bytes(old, "demo", "1.4", {"demo/__init__.py": MODULE, "demo/_impl.py": "def gone():\n    pass\n"})
    later = MODULE.replace("top=10", "top=10, *, min_len=1").replace("def _helper", "def helper")
    shipped.wheel_bytes(new, "demo", "1.5.0", {"demo/__init__.py": later})
    assert shipped.compare(old, new) == {
        "old_version": "1.4",
        "new_version": "1.5.0",
        "changes": [{"kind": "added", "name": "demo.helper"}, {"kind": "extended", "name": "demo.summarise"}],
        "required": "minor",
        "declared": "minor",
        "ok": True,
    }
    assert shipped.bump("1.4.2", "2") == "major" and shipped.bump("1.4.2", "1.4.2") == "none"
    assert shipped.bump("1.4.2", "1.10") == "minor" and shipped.bump("1.4", "1.4.0.1") == "none"


def project_wheel(local: LocalStep) -> None:
    """The wheel the parent built (pip's layout matters not: the tool reads METADATA and the modules)."""
    local.path(WHEEL).parent.mkdir(parents=True)
    with zipfile.ZipFile(local.path(WHEEL), "w") as wheel:
        wheel.writestr("textstats.py", MODULE)
        wheel.writestr("text_stats-0.3.0.dist-info/METADATA", "Name: text-stats\nVersion: 0.3.0\n")


@pytest.mark.parametrize(
    "wrong",
    [
        ('if not parts or any(p.startswith("_") for p in parts):', "if not parts:"),  # private modules counted
        ("RANKS.index(declared) >= RANKS.index(required)", "declared == required"),  # an over-bump refused
    ],
)
def test_generated_tests_pass_on_the_tool_and_fail_on_a_subtly_wrong_one(
    tmp_path: Path, wrong: tuple[str, str]
) -> None:
    local = LocalStep(build(), tmp_path / "root")
    local.plant()
    project_wheel(local)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    local.assert_caught(TOOL, wrong, tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE)
    proposal, report = extend_with("python-api-compat", parent)
    assert_accepted(proposal, report, "python-api-compat")
