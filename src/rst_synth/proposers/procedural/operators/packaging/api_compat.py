"""Which version the next release must carry: a tool that compares the public functions of two wheels of a
project (removed, added, a signature that breaks callers, one that only accepts more) and says which bump the
changes require and whether the new wheel's version declares it, run on the wheel the workflow built and a
planted candidate of the next release. The tests run it on pairs of wheels they make up."""

from __future__ import annotations

import ast
import io
import re
import tomllib
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.packaging.shipped import api_compat
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

_WHEEL_NAME = re.compile(r"([A-Za-z0-9_.]+)-(\d+(?:\.\d+)*)-.+\.whl")


def project_modules(artifact: Artifact, discovery: Discovery) -> dict[str, str]:
    """The project's top-level modules beside its pyproject.toml (those `py-modules` names, when it names
    some), file name -> source, when each sample is the whole file and parses; empty otherwise."""
    try:
        named = tomllib.loads(artifact.sample).get("tool", {}).get("setuptools", {}).get("py-modules")
    except tomllib.TOMLDecodeError:
        return {}
    found: dict[str, str] = {}
    for a in discovery.artifacts:
        stem = PurePosixPath(a.path).stem
        if a.kind is not Kind.PYTHON_SOURCE or a.directory != artifact.directory or not a.path.endswith(".py"):
            continue
        if stem in ("setup", "conftest") or stem.startswith(("test_", "_")):
            continue
        if isinstance(named, list) and stem not in named:
            continue
        if len(a.sample.encode("utf-8")) != a.size:
            return {}
        try:
            ast.parse(a.sample)
        except SyntaxError:
            return {}
        found[PurePosixPath(a.path).name] = a.sample
    return found


def _release(artifact: Artifact, discovery: Discovery) -> tuple[str, str, str, dict[str, str]] | None:
    """The project's wheel, its distribution name and version, and its modules, when all are known."""
    wheel = project_wheel(artifact, discovery)
    found = _WHEEL_NAME.fullmatch(PurePosixPath(wheel).name) if wheel else None
    modules = project_modules(artifact, discovery)
    public = any(
        isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
        for source in modules.values()
        for n in ast.parse(source).body
    )
    if wheel is None or found is None or not public:
        return None
    return wheel, found.group(1), found.group(2), modules


@register
class PythonApiCompat(ToolOperator):
    """A tool that says which version bump a candidate release's API changes require, run on a planted one."""

    name = "python-api-compat"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    final = True  # a verdict on the candidate
    once = True  # the tool is the same program whatever the project

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return _release(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "release", "incoming")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        found = _release(artifact, ctx.discovery)
        assert found is not None  # applies() checked it
        wheel, dist, version, modules = found
        parts = [int(p) for p in version.split(".")] + [0, 0]
        major, minor, patch = parts[0], parts[1], parts[2]
        later = ctx.rng.choice([f"{major + 1}.0.0", f"{major}.{minor + 1}.0", f"{major}.{minor}.{patch + 1}"])
        changed = {name: api_compat.mutate(source, ctx.rng) for name, source in modules.items()}
        candidate = f"{planted_dir(ctx)}/{dist}-{later}-py3-none-any.whl"
        packed = io.BytesIO()
        api_compat.wheel_bytes(packed, dist, later, changed)
        tool = tool_path(ctx, artifact, "api_compat")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/release", f"{dist.lower()}_api.json")
        params = {"TOOL": tool, "OLD": wheel, "NEW": candidate, "OUT": out, "SEED": ctx.rng.randrange(10**6)}
        run = f"{q(tool)} {q(wheel)} {q(candidate)} > {q(out)}"
        solution = self.tool_solution(tool, render(api_compat, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            api_compat,
            [
                "test_comparison_of_the_planted_release",
                "test_tool_on_generated_releases",
                "test_tool_refuses_what_it_cannot_compare",
            ],
            tag=ctx.tag,
            **params,
        )
        instruction = " ".join(
            f"""A candidate of the next release, `{candidate}`, has arrived; before it ships, the maintainers need
            to know which version its API changes require against `{wheel}` (built from `{artifact.path}`). Write
            a command-line tool `{tool}` (an executable file with a `#!` line): `{tool} OLD.whl NEW.whl` reads two
            wheels and prints one JSON object. A wheel's version is the `Version` field of its single
            `*.dist-info/METADATA` file and must be dot-separated decimal numbers (`1.4`, `0.3.0`). Its public API
            is every module-level `def` or `async def` whose name does not start with `_` (methods and nested
            functions are not), in every `.py` file of the archive outside `*.dist-info` and `*.data` folders,
            named `MODULE.FUNCTION` where MODULE is the file's path without `.py`, `/` as `.` and a final
            `__init__` dropped (`pkg/__init__.py` is `pkg`, `pkg/cli.py` is `pkg.cli`); a module any of whose
            dotted parts starts with `_` is private and left out, and of two definitions of one name the later
            counts. A function only the old wheel has is `removed`, one only the new wheel has is `added`. A
            function of both is `signature` (breaking) when a call valid against the old parameters can fail:
            the old positional parameters (positional-only and ordinary, in order) are not the first positional
            parameters of the new one with the same names; the new one has more positional parameters without a
            default than the old one had (a new one without a default, or an old one that lost its default); an
            old keyword-only parameter is not a keyword-only parameter of the new one, or lost its default; a new
            keyword-only parameter has no default; or the old one took
            `*args` or `**kwargs` and the new one does not. Otherwise it is `extended` when the new one has more
            positional parameters, keyword-only parameters of other names, or a `*args` or `**kwargs` the old one
            lacked; else it is unchanged and not listed. The object has `old_version` and `new_version` (strings
            as in METADATA), `changes` (a list of objects with exactly the keys `kind` and `name`, sorted by
            `name` and then `kind` in code-point order), `required` (`major` when a change is `removed` or
            `signature`, else `minor` when there is any change, else `patch`), `declared` (comparing the versions
            padded with zeros to three numbers: `major` when the first number grew, else `minor` when the first
            is equal and the second grew, else `patch` when the first two are equal and the third grew, else
            `none`) and `ok` (true when `declared` is not `none` and is at least `required` in the order `patch`,
            `minor`, `major`). A wrong number of arguments, a file that cannot be read or is not a zip archive, a
            wheel without exactly one METADATA or with another form of version, or a module that is not valid
            Python makes it print an error to standard error, nothing to standard output, and exit 2. Then run it
            on `{wheel}` and `{candidate}` and save its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(candidate, packed.getvalue()),
            produces=[Artifact(path=out, kind=Kind.JSON), self.executable(tool)],
        )
