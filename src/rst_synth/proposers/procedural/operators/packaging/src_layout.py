"""A single-module project moved to a package under `src/` for the next release: the module becomes
`src/MODULE/__init__.py` less its `if __name__ == "__main__":` block, a `__main__.py` makes `python3 -m MODULE`
run the console script's function, and `pyproject.toml` finds the package under `src` instead of naming the
module. The tests build wheels of both layouts with pip (the same name, version and console scripts), install
the new one and run its command and `python3 -m` beside the old module on the task's inputs."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, work_root
from rst_synth.proposers.procedural.operators.packaging.api_compat import project_modules
from rst_synth.proposers.procedural.operators.packaging.shipped import src_layout
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

_INPUT_KINDS = (Kind.TEXT, Kind.CSV, Kind.JSON)


def _project(artifact: Artifact, discovery: Discovery) -> tuple[str, str, str] | None:
    """The project's one module, the function its first console script runs and that script's name, when the
    module has a `__main__` block (else the package would be a copy of it) and pyproject.toml names the module
    on one `py-modules` line and no file the new folder would lack (a readme, a license)."""
    try:
        project = tomllib.loads(artifact.sample)
    except tomllib.TOMLDecodeError:
        return None
    table = project.get("project", {})
    named = project.get("tool", {}).get("setuptools", {}).get("py-modules")
    scripts = table.get("scripts")
    modules = project_modules(artifact, discovery)
    if not isinstance(named, list) or len(named) != 1 or sorted(modules) != [f"{named[0]}.py"]:
        return None
    if not isinstance(scripts, dict) or not scripts or {"readme", "license", "license-files"} & set(table):
        return None
    if not src_layout.PY_MODULES.search(artifact.sample) or "packages" in project["tool"]["setuptools"]:
        return None
    script, value = next(iter(scripts.items()))
    found = re.fullmatch(r"(\w+):(\w+)", value) if isinstance(value, str) else None
    source = modules[f"{named[0]}.py"]
    if found is None or found.group(1) != named[0] or project_wheel(artifact, discovery) is None:
        return None
    if not any(src_layout.is_main_block(node) for node in ast.parse(source).body):
        return None
    return named[0], found.group(2), script


def _inputs(discovery: Discovery) -> list[str]:
    """Up to three of the task's data files under the work root: what the command's runs read."""
    root = work_root(discovery) + "/"
    found = [a.path for a in discovery.artifacts if a.input and a.kind in _INPUT_KINDS and a.path.startswith(root)]
    return sorted(found)[:3]


@register
class PythonSrcLayout(Operator):
    """Move a single-module project to a package under `src/`, building the same release as before."""

    name = "python-src-layout"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 2.0
    once = True  # one project layout per lineage

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return _project(artifact, discovery) is not None and not inside_git(f"{root}/x", discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        found = _project(artifact, ctx.discovery)
        assert found is not None  # applies() checked it
        module, function, script = found
        project = str(PurePosixPath(artifact.path).parent)
        new = fresh_path(ctx, work_root(ctx.discovery), f"{PurePosixPath(project).name}-src")
        inputs = _inputs(ctx.discovery)
        params = {"PROJECT": project, "MODULE": module, "FUNCTION": function, "SCRIPT": script, "NEW": new}
        solution = python_script(render(src_layout, ["main"], INPUTS=inputs, **params), "main()")
        tests = render(
            src_layout,
            ["test_new_layout_holds_the_package", "test_new_layout_builds_the_same_release_and_runs_as_before"],
            tag=ctx.tag,
            INPUTS=inputs,
            **params,
        )
        runs = ", ".join(f"`{p}`" for p in inputs)
        on_inputs = f"with each of {runs} as its one argument and with all of them (in that order)" if inputs else ""
        instruction = " ".join(
            f"""For the next release the project `{project}` moves from the single module `{project}/{module}.py`
            to a package under `src/`, in a new folder `{new}`; leave `{project}` as it is. `{new}` holds exactly
            three files (`__pycache__` folders aside): `{new}/pyproject.toml`, `{new}/src/{module}/__init__.py`
            and `{new}/src/{module}/__main__.py`. `__init__.py` holds the code of `{module}.py` without its `if
            __name__ == "__main__":` block (the same statements otherwise, the docstring included).
            `__main__.py` makes `python3 -m {module}` call `{function}()` (what the console script `{script}`
            runs) with no arguments and exit with its return value. `{new}/pyproject.toml` has the same
            `[build-system]` and `[project]` tables as `{artifact.path}` (every key and value the same, the
            version source included) and no `py-modules`; setuptools must find the package under `src`. Built
            with `pip wheel --no-index --no-build-isolation --no-deps` from a copy of `{new}`, it must give a
            wheel with the same file name, METADATA `Name` and `Version` and console scripts as the wheel built
            the same way from `{artifact.path}` and `{module}.py`, holding outside its `.dist-info` folder only
            `{module}/__init__.py` and `{module}/__main__.py`. Installed with `pip install --no-index --no-deps
            --target FOLDER`, its command `{script}` and `python3 -m {module}` must exit as `python3
            {project}/{module}.py` does when run with no arguments and with `--help`, and print the same
            standard output and exit the same when run {on_inputs or "with the same arguments"}. Any build
            leftovers (`build/`, `*.egg-info`) must not stay in `{new}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=f"{new}/pyproject.toml", kind=Kind.CONFIG, details={"format": "toml"}),
                Artifact(path=f"{new}/src/{module}/__init__.py", kind=Kind.PYTHON_SOURCE),
                Artifact(path=f"{new}/src/{module}/__main__.py", kind=Kind.PYTHON_SOURCE),
            ],
        )
