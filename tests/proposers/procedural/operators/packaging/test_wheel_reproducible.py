"""wheel-reproducible: where it applies, the normalised entries of a wheel, a deterministic step that names
its paths, its generated tests on its own tool (and on one that keeps the input's entry order), and a child
accepted against a parent that builds a wheel."""

from __future__ import annotations

import base64
import hashlib
import io
import random
import re
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_reproducible as shipped
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

OP = OPERATORS["wheel-reproducible"]
PYPROJECT = '[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "text-stats"\nversion = "0.3.0"\n'
WHEEL = "/app/dist/text_stats-0.3.0-py3-none-any.whl"


def pyproject(text: str = PYPROJECT) -> Artifact:
    kind, details, sample = classify("/app/project/pyproject.toml", text.encode())
    return Artifact(path="/app/project/pyproject.toml", kind=kind, size=len(text), details=details, sample=sample)


def discovery(*extra: Artifact) -> Discovery:
    wheel = Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"})
    return Discovery(workdir="/app", artifacts=[pyproject(), wheel, *extra], tools=["python3"])


def build(seed: int = 1) -> Step:
    return OP.step(pyproject(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r2s1"))


def wheel_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr("text_stats-0.3.0.dist-info/RECORD", "old,,\n")
        wheel.writestr("textstats.py", "def main():\n    return 0\n")
        wheel.writestr("text_stats-0.3.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: text-stats\n")
        wheel.writestr(zipfile.ZipInfo("text_stats-0.3.0.data/"), "")
    return buffer.getvalue()


def test_it_applies_to_a_project_with_a_wheel() -> None:
    assert OP.can_use(pyproject(), discovery())
    other = pyproject(PYPROJECT.replace("text-stats", "other"))
    assert not OP.can_use(other, discovery())  # no wheel of that project
    settings = Artifact(path="/app/config/app.toml", kind=Kind.CONFIG, sample=PYPROJECT, details={"format": "toml"})
    assert not OP.can_use(settings, discovery())


def test_normalised_entries(tmp_path: Path) -> None:
    src = tmp_path / "in.whl"
    src.write_bytes(wheel_bytes())
    entries = shipped.normalized(src)
    assert [n for n, _, _ in entries] == [
        "textstats.py",
        "text_stats-0.3.0.dist-info/METADATA",
        "text_stats-0.3.0.dist-info/RECORD",
    ]
    record = entries[-1][2].decode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"def main():\n    return 0\n").digest()).rstrip(b"=").decode()
    assert record.splitlines()[0] == f"textstats.py,sha256={digest},25"
    assert record.splitlines()[-1] == "text_stats-0.3.0.dist-info/RECORD,,"


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {WHEEL, "/app/bin/pyproject_wheel_normalize", "/app/dist-repro/text_stats-0.3.0-py3-none-any.whl"}
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_tool_and_fail_on_kept_order(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.put(WHEEL, wheel_bytes())
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/pyproject_wheel_normalize")
    source = tool.read_text()
    tool.write_text(
        source.replace(
            "    order = sorted(n for n in files if not meta(n))", "    order = [n for n in files if not meta(n)]"
        )
    )
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


PARENT_SOLVE = """mkdir -p /app/project /app/dist
cat > /app/project/pyproject.toml <<'TOML'
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "textstats"
version = "0.3.0"

[project.scripts]
textstats = "textstats:main"

[tool.setuptools]
py-modules = ["textstats"]
TOML
printf 'def main():\\n    print("ok")\\n' > /app/project/textstats.py
python3 -m pip wheel --no-index --no-build-isolation --no-deps -q -w /app/dist /app/project
"""
PIP_DOCKERFILE = BASE_DOCKERFILE + (
    "RUN apt-get update && apt-get install -y --no-install-recommends python3-pip python3-setuptools python3-wheel"
    " && rm -rf /var/lib/apt/lists/*\n"
)


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("wheel-reproducible", parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE))
    assert_accepted(proposal, report, "wheel-reproducible")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
