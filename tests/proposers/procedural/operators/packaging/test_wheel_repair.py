"""wheel-repair: where it applies (a project whose wheel, `py-modules` and console scripts are known), a
deterministic step that plants a broken candidate and names every rule, the planted faults, the generated
tests on the step's own repair (and on repairs that keep a module's old version, sizes in characters
or the candidate's RECORD rows), and a child accepted against a parent that builds a wheel."""

from __future__ import annotations

import csv
import io
import random
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_repair as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import PIP_DOCKERFILE
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["wheel-repair"]
WHEEL = "/app/dist/textstats-0.3.0-py3-none-any.whl"
PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
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
MODULE = '"""Wörter zählen."""\n__version__ = "0.3.0"\n\n\ndef main(argv=None):\n    print("ok")\n    return 0\n'


def artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(pyproject: str = PYPROJECT, module: str = MODULE) -> Discovery:
    wheel = Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"})
    found = [artifact("/app/project/pyproject.toml", pyproject), artifact("/app/project/textstats.py", module), wheel]
    return Discovery(workdir="/app", artifacts=found, tools=["python3"])


def build(seed: int = 0) -> Step:
    pyproject = artifact("/app/project/pyproject.toml", PYPROJECT)
    return OP.step(pyproject, StepContext(discovery=discovery(), rng=random.Random(seed), tag="r7s1"))


def test_it_applies_to_a_project_whose_scripts_name_its_modules() -> None:
    pyproject = artifact("/app/project/pyproject.toml", PYPROJECT)
    assert OP.can_use(pyproject, discovery()) and OP.once and OP.weight > 1
    other = PYPROJECT.replace('"textstats:main"', '"textstats.cli:main"')
    assert not OP.can_use(artifact("/app/project/pyproject.toml", other), discovery(other))
    bare = PYPROJECT.replace('[project.scripts]\ntextstats = "textstats:main"\n', "")
    assert not OP.can_use(artifact("/app/project/pyproject.toml", bare), discovery(bare))
    assert not OP.can_use(pyproject, Discovery(workdir="/app", artifacts=[pyproject], tools=["python3"]))


def test_build_is_deterministic_and_names_every_rule() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    candidate = "/app/incoming/r7s1/textstats-0.3.1-py3-none-any.whl"
    for literal in (candidate, WHEEL, "/app/dist/textstats-0.3.1-py3-none-any.whl", "textstats-0.3.1.dist-info"):
        assert f"`{literal}`" in step.instruction, literal
    for rule in ("`[console_scripts]`", "`[project.scripts]`", "`__version__", "`sha256=`", "`PATH,,`", "--target"):
        assert rule in step.instruction, rule


def test_candidate_has_the_faults_it_names() -> None:
    modules = {"textstats": MODULE, "helpers": "def helper():\n    return 1\n"}
    for seed in range(20):
        data, faults = shipped.candidate_bytes(
            "textstats", "0.3.0", "0.3.1", modules, {"ts": "textstats:main"}, random.Random(seed)
        )
        with zipfile.ZipFile(io.BytesIO(data)) as wheel:
            names = set(wheel.namelist())
            info = next(n.split("/")[0] for n in names if n.endswith("/RECORD"))
            rows = {r[0]: r for r in csv.reader(io.StringIO(wheel.read(info + "/RECORD").decode())) if r}
            points = wheel.read(info + "/entry_points.txt").decode()
            metadata = wheel.read(info + "/METADATA").decode()
        assert "ts = textstats:main_cli" in points and faults[0] == "entry_point"
        assert (info == "textstats-0.3.0.dist-info") == ("dist_info_version" in faults)
        assert ("Version: 0.3.0" in metadata) == ("metadata_version" in faults)
        assert ("helpers.py" not in names) == ("missing_module" in faults)
        assert ("helpers_compat.py" in rows) == ("stale_row" in faults)
        assert (info + "/top_level.txt" not in rows) == ("unrecorded" in faults)
        assert len(faults) == 4


def test_reference_sets_the_version_of_a_module() -> None:
    assert shipped.with_version(b"__version__ = '1.2'\nx = '__version__ = 1'\n", "1.3") == (
        b"__version__ = '1.3'\nx = '__version__ = 1'\n"
    )


def local_step(tmp_path: Path) -> LocalStep:
    local = LocalStep(build(), tmp_path / "root")
    local.put("/app/project/pyproject.toml", PYPROJECT)
    local.put("/app/project/textstats.py", MODULE)
    local.plant()
    return local


@pytest.mark.slow
def test_generated_tests_pass_on_the_repair(tmp_path: Path) -> None:
    local = local_step(tmp_path)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    with zipfile.ZipFile(local.path("/app/dist/textstats-0.3.1-py3-none-any.whl")) as wheel:
        assert b'__version__ = "0.3.1"' in wheel.read("textstats.py")


@pytest.mark.parametrize(
    "wrong",
    [
        ('files[f"{module}.py"] = with_version(f.read(), version)', 'files[f"{module}.py"] = f.read()'),
        ("[name, digest_of(data), str(len(data))]", "[name, digest_of(data), str(len(data.decode()))]"),
        ('rest in ("RECORD", "entry_points.txt")', 'rest in ("entry_points.txt",)'),
    ],
)
def test_generated_tests_fail_on_a_subtly_wrong_repair(tmp_path: Path, wrong: tuple[str, str]) -> None:
    local = local_step(tmp_path)
    assert wrong[0] in local.step.solution
    local.step = local.step.model_copy(update={"solution": local.step.solution.replace(wrong[0], wrong[1])})
    local.solve()
    failed = []
    for only in ("holds_the_release", "record"):
        try:
            local.run_tests(tmp_path / only, only=only)
        except AssertionError:
            failed.append(only)
    assert failed, wrong


PARENT_SOLVE = """mkdir -p /app/project /app/dist
cat > /app/project/pyproject.toml <<'TOML'
[build-system]
requires = ["setuptools>=61"]
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
TOML
printf '__version__ = "0.3.0"\\n\\n\\ndef main():\\n    print("ok")\\n' > /app/project/textstats.py
python3 -m pip wheel --no-index --no-build-isolation --no-deps -q -w /app/dist /app/project
"""


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("wheel-repair", parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE))
    assert_accepted(proposal, report, "wheel-repair")
