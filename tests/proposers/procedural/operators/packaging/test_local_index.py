"""package-local-index: where it applies (a project whose pure-Python wheel has older versions free), a
deterministic step that plants older releases and another library spelt two ways, its generated tests passing on
its own index (pip installing from it offline through a file:// URL) and failing on indexes that do not normalise
names, give a wrong or no hash, leave out an older release or write `>=` unescaped; and a child accepted against
the packaging seed."""

from __future__ import annotations

import base64
import io
import random
import shutil
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import local_index as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.support.operators import assert_accepted, extend_with
from tests.support.tasks import SEEDS

OP = OPERATORS["package-local-index"]
SEED = SEEDS / "python-cli-package"
PYPROJECT = (SEED / "solution" / "solve.sh").read_text().split("<<'TOML'\n")[1].split("TOML\n")[0]
MODULE = (SEED / "environment" / "project" / "textstats.py").read_text()
WHEEL = "/app/dist/textstats-0.3.0-py3-none-any.whl"
FOLDERS = ("/app", "/srv")
PAGES = "test_r4s1_project_pages"


def artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*extra: Artifact, wheel: str = WHEEL) -> Discovery:
    found = [
        artifact("/app/project/pyproject.toml", PYPROJECT),
        artifact("/app/project/textstats.py", MODULE),
        Artifact(path=wheel, kind=Kind.ARCHIVE, details={"format": "zip"}),
        *extra,
    ]
    return Discovery(workdir="/app", artifacts=found, tools=["python3"])


def build(seed: int = 3) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r4s1"))


def seed_wheel() -> bytes:
    """The seed's wheel as its solution builds it, near enough: the module, METADATA with `Requires-Python`."""
    name, data = shipped.release_wheel("textstats", "textstats", "0.3.0", {"textstats.py": MODULE}, ">=3.9")
    assert name == "textstats-0.3.0-py3-none-any.whl"
    return data


def run(step: Step, root: Path, solution: str | None = None, only: str = "") -> dict[str, str]:
    return outcomes(step, root, files={WHEEL: seed_wheel()}, folders=FOLDERS, solution=solution, only=only)


def test_it_applies_to_a_project_with_a_wheel_and_older_versions_free() -> None:
    found = discovery()
    assert OP.can_use(found.artifacts[0], found) and OP.once and OP.final
    assert not OP.can_use(found.artifacts[1], found)
    first = discovery(wheel="/app/dist/textstats-0.0.1-py3-none-any.whl")
    assert not OP.can_use(first.artifacts[0], first)  # no two releases below the first
    built = discovery(Artifact(path="/srv/pypi/simple/index.html", kind=Kind.TEXT))
    assert not OP.can_use(built.artifacts[0], built)  # an index is there already


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    for literal in (WHEEL, "/srv/pypi/simple/index.html", "/srv/pypi/packages/PROJECT/FILE", "#sha256=HEX"):
        assert literal in step.instruction, literal
    planted = [line.split(" > ")[1].split(" ")[0] for line in step.dockerfile.splitlines()]
    assert len(planted) == 4 and all(f"`{p}`" in step.instruction for p in planted)
    names = [p.rsplit("/", 1)[1] for p in planted]
    assert all(n.startswith("textstats-0.") for n in names[:2]) and names[0] < names[1] < WHEEL.rsplit("/", 1)[1]
    assert names[2].startswith(("Text_Utils-", "Report_Kit-", "Log_Format-")) and names[3][0].islower()


def test_planted_wheels_keep_the_module_at_their_version() -> None:
    step = build()
    line = step.dockerfile.splitlines()[1]
    data = base64.b64decode(line.split("printf '%s' '")[1].split("'")[0])
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        info = next(n for n in wheel.namelist() if n.endswith("/METADATA"))
        version = info.split("/")[0].removesuffix(".dist-info").split("-")[1]
        assert f'__version__ = "{version}"' in wheel.read("textstats.py").decode()
        assert "Requires-Python: >=3.7" in wheel.read(info).decode()


@pytest.mark.slow
def test_generated_tests_pass_on_the_index(tmp_path: Path) -> None:
    results = run(build(), tmp_path)
    assert len(results) == 3 and not failed(results), results
    page = (tmp_path / "srv/pypi/simple/textstats/index.html").read_text()
    assert page.count("<a ") == 3 and 'data-requires-python="&gt;=3.9"' in page
    projects = sorted(p.name for p in (tmp_path / "srv/pypi/packages").iterdir())
    assert projects[0] == "textstats" or projects[1] == "textstats"
    assert set(projects) - {"textstats"} <= {"text-utils", "report-kit", "log-format"} and len(projects) == 2
    assert (tmp_path / "app/dist/textstats-0.3.0-py3-none-any.whl").read_bytes() == seed_wheel()


@pytest.mark.parametrize(
    ("wrong", "catches"),
    [
        # a folder per spelling: `text_utils` and `text.utils`, none `text-utils`
        (('re.sub(r"[-_.]+", "-", name).lower()', "name.lower()"), ["project_list", "project_pages", "pip"]),
        (("hashlib.sha256(f.read()).hexdigest()", "hashlib.md5(f.read()).hexdigest()"), ["project_pages", "pip"]),
        (("#sha256={digest}", ""), ["project_pages"]),
        # the last wheel of a project replaces the others: only the newest release is served
        (("pages.setdefault(project, []).append(anchor)", "pages[project] = [anchor]"), ["project_pages", "pip"]),
        (("{html.escape(requires)}", "{requires}"), ["project_pages"]),
    ],
)
def test_generated_tests_fail_on_a_subtly_wrong_index(
    tmp_path: Path, wrong: tuple[str, str], catches: list[str]
) -> None:
    step = build()
    changed = step.solution.replace(*wrong)
    assert changed != step.solution
    results = run(step, tmp_path, changed)
    assert all(any(c in name for name in failed(results)) for c in catches), results


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the packaged, installed textstats
    proposal, report = extend_with("package-local-index", parent)
    assert_accepted(proposal, report, "package-local-index")
