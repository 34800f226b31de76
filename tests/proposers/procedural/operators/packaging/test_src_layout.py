"""python-src-layout: where it applies (one module with a `__main__` block, one `py-modules` line, a console
script of it, a wheel built), a deterministic step that names every path and rule, the reference's package code,
the generated tests on the step's own migration (and on migrations that keep the `__main__` block, drop the
exit status or leave a build's leftovers), and a child accepted against a parent that builds a wheel."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import src_layout as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_wheel_repair import PYPROJECT, WHEEL
from tests.proposers.procedural.operators.packaging.test_wheel_reproducible import PIP_DOCKERFILE
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-src-layout"]
MODULE = '''"""Wörter zählen: word counts of text files."""
import argparse
import sys

__version__ = "0.3.0"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="textstats")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            print(path.rsplit("/", 1)[-1], len(f.read().split()))
    return 3 if len(args.files) > 1 else 0


if __name__ == "__main__":
    sys.exit(main())
'''
NOTES = {"/app/data/a.txt": "eins zwei drei\n", "/app/data/b.txt": "vier fünf\n"}


def artifact(path: str, text: str, given: bool = False) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    found = Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)
    return found.model_copy(update={"input": given})


def discovery(pyproject: str = PYPROJECT, module: str = MODULE) -> Discovery:
    found = [
        artifact("/app/project/pyproject.toml", pyproject),
        artifact("/app/project/textstats.py", module, given=True),
        Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"}),
        *(artifact(path, text, given=True) for path, text in NOTES.items()),
    ]
    return Discovery(workdir="/app", artifacts=found, tools=["python3"])


def build(seed: int = 0) -> Step:
    pyproject = artifact("/app/project/pyproject.toml", PYPROJECT)
    return OP.step(pyproject, StepContext(discovery=discovery(), rng=random.Random(seed), tag="r7s2"))


def test_it_applies_to_one_module_with_a_main_block() -> None:
    pyproject = artifact("/app/project/pyproject.toml", PYPROJECT)
    assert OP.can_use(pyproject, discovery()) and OP.once and OP.weight > 1
    plain = MODULE.split("\n\nif __name__")[0] + "\n"
    assert not OP.can_use(pyproject, discovery(module=plain))  # its package would be a copy of the module
    readme = PYPROJECT.replace('dynamic = ["version"]', 'dynamic = ["version"]\nreadme = "README.md"')
    assert not OP.can_use(artifact("/app/project/pyproject.toml", readme), discovery(readme))
    two = PYPROJECT.replace('py-modules = ["textstats"]', 'py-modules = ["textstats", "extra"]')
    assert not OP.can_use(artifact("/app/project/pyproject.toml", two), discovery(two))


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    for literal in ("/app/project-src/src/textstats/__main__.py", "/app/data/a.txt", "/app/data/b.txt", "main()"):
        assert f"`{literal}`" in step.instruction, literal
    for rule in ("`py-modules`", "`[project]`", "`python3 -m textstats`", "--target", "`--help`", "`build/`"):
        assert rule in step.instruction, rule


def test_package_code_drops_the_main_block_only() -> None:
    code = shipped.package_code(MODULE)
    assert code.endswith("    return 3 if len(args.files) > 1 else 0\n") and "__main__" not in code
    assert (
        shipped.package_code("x = 1\nif __name__ == 'other':\n    x = 2\n")
        == "x = 1\nif __name__ == 'other':\n    x = 2\n"
    )


def local_step(tmp_path: Path) -> LocalStep:
    local = LocalStep(build(), tmp_path / "root")
    local.put("/app/project/pyproject.toml", PYPROJECT)
    local.put("/app/project/textstats.py", MODULE)
    for path, text in NOTES.items():
        local.put(path, text)
    return local


@pytest.mark.slow
@pytest.mark.parametrize(
    "wrong",
    [
        None,
        ("package_code(source), encoding", "source, encoding"),  # the `__main__` block kept
        ("sys.exit({FUNCTION}())", "{FUNCTION}()"),  # the exit status lost
        ("tomllib.loads(text)", 'pathlib.Path(NEW, "SOURCES.txt").write_text(text)'),  # a build's leftovers
    ],
)
def test_generated_tests_on_the_migration(tmp_path: Path, wrong: tuple[str, str] | None) -> None:
    local = local_step(tmp_path)
    if wrong is not None:
        assert wrong[0] in local.step.solution
        local.step = local.step.model_copy(update={"solution": local.step.solution.replace(wrong[0], wrong[1])})
    local.solve()
    if wrong is None:
        assert len(local.run_tests(tmp_path / "t")) == 2
        return
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "t")


PARENT_SOLVE = (
    """mkdir -p /app/project /app/dist
cat > /app/project/pyproject.toml <<'TOML'
"""
    + PYPROJECT
    + """TOML
cat > /app/project/textstats.py <<'PY'
"""
    + MODULE
    + """PY
python3 -m pip wheel --no-index --no-build-isolation --no-deps -q -w /app/dist /app/project
"""
)


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    notes = "RUN mkdir -p /app/data && printf 'eins zwei\\nvier\\n' > /app/data/a.txt\n"  # an input of the task
    parent = parent_task(tmp_path, PARENT_SOLVE, dockerfile=PIP_DOCKERFILE + notes)
    proposal, report = extend_with("python-src-layout", parent)
    assert_accepted(proposal, report, "python-src-layout")
