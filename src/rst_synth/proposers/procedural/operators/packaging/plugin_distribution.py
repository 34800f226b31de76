"""A second distribution for a package the workflow built and installed: it depends on the package at its
installed version, ships a plugin in an entry-point group named after the package and a command that lists
and runs that group's plugins. The tests read the built wheel's metadata, rebuild it from its sources,
install it with its dependency offline into a folder of their own, and run the command over fake plugin
distributions they write. (Installing it into the system would make outputs no test reads, such as a
WHEEL file that is a copy of the package's own.)"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import plugin_distribution
from rst_synth.proposers.procedural.operators.packaging.wheels import installed_version, project_name, project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render, used_modules


def module_source(group: str, script: str) -> str:
    """The plugin distribution's module: its docstring, its imports, the plugin `digest` and the command's `main`."""
    code = render(plugin_distribution, ["digest", "main"], GROUP=group, SCRIPT=script)
    imports = "".join(f"import {m}\n" for m in used_modules(code))
    return f'"""Plugins of {group}: `{script} list` and `{script} run NAME FILE`."""\n{imports}\n\n{code}'


def _names(artifact: Artifact) -> tuple[str, str, str] | None:
    """(distribution, module, entry-point group) of the plugin distribution for the project."""
    name = project_name(artifact)
    if name is None:
        return None
    base = re.sub(r"[-_.]+", "_", name).lower()
    return f"{name}-digest", f"{base}_digest", f"{base}.plugins"


@register
class PythonPluginDistribution(Operator):
    """A dependent distribution with an entry-point plugin and a plugin host command, built and installed."""

    name = "python-plugin-distribution"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0
    # The plugin is named for the project: a second one, of a copy of the project (a new layout), writes the
    # same distribution again, and the parent's solution passes its tests.
    once = True

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        names, name = _names(artifact), project_name(artifact)
        return (
            names is not None
            and name is not None
            and project_wheel(artifact, discovery) is not None
            and installed_version(name, discovery) is not None
            and installed_version(names[0], discovery) is None
            and not inside_git(f"{work_root(discovery)}/plugins/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        names, base, wheel = _names(artifact), project_name(artifact), project_wheel(artifact, ctx.discovery)
        assert names is not None and base is not None and wheel is not None  # applies() checked them
        version = installed_version(base, ctx.discovery)
        dist, module, group = names
        script = f"{base}-plugin"
        dist_dir = f"{work_root(ctx.discovery)}/plugins/dist"
        src = f"{work_root(ctx.discovery)}/plugins/{dist}"
        out = f"{dist_dir}/{module}-0.1.0-py3-none-any.whl"
        pyproject = (
            '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{dist}"\nversion = "0.1.0"\ndependencies = ["{base}=={version}"]\n\n'
            f'[project.scripts]\n{script} = "{module}:main"\n\n'
            f'[project.entry-points."{group}"]\ndigest = "{module}:digest"\n\n'
            f'[tool.setuptools]\npy-modules = ["{module}"]\n'
        )
        source = module_source(group, script)
        solution = f"""mkdir -p {q(src)} {q(dist_dir)}
cat > {q(src + "/pyproject.toml")} <<'TOML'
{pyproject}TOML
cat > {q(src + "/" + module + ".py")} <<'PY'
{source}PY
build="$(mktemp -d)"
cp -r {q(src)} "$build/src"
python3 -m pip wheel --no-index --no-build-isolation --no-deps -q -w {q(dist_dir)} "$build/src"
rm -rf "$build\""""
        tests = render(
            plugin_distribution,
            ["test_wheel_metadata", "test_wheel_built_from_the_sources", "test_plugin_command"],
            tag=ctx.tag,
            WHEEL=out,
            DIST=dist,
            MODULE=module,
            GROUP=group,
            BASE=base,
            VERSION=version,
            SCRIPT=script,
            SRC=src,
            BASE_DIST=str(PurePosixPath(wheel).parent),
        )
        instruction = " ".join(
            f"""Give the installed package `{base}` (version {version}, built from `{artifact.path}` into
            `{wheel}`) a plugin mechanism in a second distribution. Write a project for the distribution `{dist}`,
            version `0.1.0`, whose only dependency is `{base}=={version}`, with a single module `{module}` that
            provides the function `digest(text)` (the hexadecimal SHA-256 of the text encoded as UTF-8), registered
            as the plugin `digest` in the entry-point group `{group}`, and the console script `{script}` (running the
            module's `main()`). `{script} list` prints one line `NAME VALUE DISTRIBUTION` per entry point of the
            group `{group}` among the installed distributions (VALUE as written in the entry point, DISTRIBUTION the
            `Name` of the distribution's metadata), sorted by NAME, then DISTRIBUTION; `{script} run NAME FILE`
            loads the one plugin named NAME, calls it with the UTF-8 text of FILE and prints the result (with `print`)
            and exits 0. When no plugin or more than one plugin has that name, or the arguments are wrong, it prints
            an error to standard error and exits 2; when reading FILE, loading or calling the plugin fails, it prints
            an error to standard error and exits 3; nothing goes to standard output in both cases. Plugins of
            distributions on `PYTHONPATH` count too. Put the project's sources in `{src}` (`{src}/pyproject.toml`
            and `{src}/{module}.py`, setuptools as the build backend, no build files left there): building them with
            `pip wheel --no-index --no-build-isolation --no-deps` must give a wheel with the same files and contents as
            the one you ship, `{out}`. It must install offline with `pip install --no-index --find-links
            {PurePosixPath(wheel).parent}` (which takes `{base}` from there), the console script then running from
            the install folder.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=f"{src}/pyproject.toml", kind=Kind.CONFIG, details={"format": "toml"}, sample=pyproject),
                Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "zip"}),
            ],
        )
