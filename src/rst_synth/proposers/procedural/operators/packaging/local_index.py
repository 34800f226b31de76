"""The release goes to hosts without internet access, which install from an internal package index on a file
share: the step plants two older releases of the project and two wheels of another team's library whose name is
spelt two ways, and the solution builds a PEP 503 "simple" repository of them and of the wheel the workflow
built (normalised project names, a page per project, links with the file's SHA-256 and `data-requires-python`).
The tests parse the pages, follow every link to its file and hash, and install each release from the index
with pip, the other library by a spelling of its name that no file uses."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, plant, planted_dir
from rst_synth.proposers.procedural.operators.packaging.api_compat import project_modules
from rst_synth.proposers.procedural.operators.packaging.shipped import local_index
from rst_synth.proposers.procedural.operators.packaging.shipped.wheel_repair import with_version
from rst_synth.proposers.procedural.operators.packaging.wheels import project_name, project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

ROOT = "/srv/pypi"
_WHEEL_NAME = re.compile(r"([A-Za-z0-9_.]+)-(\d+(?:\.\d+){0,2})-py3-none-any\.whl")
LIBRARIES = (("Text_Utils", "text.utils"), ("Report_Kit", "report.kit"), ("Log_Format", "log.format"))
"""Another team's library: the name its first wheel's METADATA gives, and the spelling of the next release."""
Version = tuple[int, int, int]


def _release(artifact: Artifact, discovery: Discovery) -> tuple[str, str, Version] | None:
    """The project's pure-Python wheel, the distribution part of its file name and its version."""
    wheel = project_wheel(artifact, discovery)
    found = _WHEEL_NAME.fullmatch(PurePosixPath(wheel).name) if wheel else None
    if wheel is None or found is None:
        return None
    return wheel, found[1], _parsed(found[2])


def _older(version: Version, taken: set[Version]) -> list[Version]:
    """The six releases just below `version` (x.y.z with y < 10, z < 4) that no wheel of the workflow has."""
    below = [
        (a, b, c)
        for a in range(version[0] + 1)
        for b in range(10)
        for c in range(4)
        if (0, 0, 0) < (a, b, c) < version and (a, b, c) not in taken
    ]
    return below[-6:]


def _taken(stem: str, discovery: Discovery) -> set[Version]:
    """Versions of the project's wheels the workflow has already (an older release must not collide)."""
    found = set()
    for a in discovery.artifacts:
        match = _WHEEL_NAME.fullmatch(a.name)
        if match and match[1].lower() == stem.lower():
            found.add(_parsed(match[2]))
    return found


def _parsed(dotted: str) -> Version:
    """`1.4` as (1, 4, 0)."""
    a, b, c = (int(p) for p in (dotted.split(".") + ["0", "0"])[:3])
    return a, b, c


def _dotted(version: Version) -> str:
    return ".".join(map(str, version))


def _old_releases(stem: str, name: str, old: list[Version], modules: dict[str, str]) -> list[tuple[str, bytes]]:
    """Wheels of the project's older releases: its modules with their `__version__` at each release."""
    planted = []
    for n, release in enumerate(old):
        dotted = _dotted(release)
        sources = {m: with_version(s.encode("utf-8"), dotted).decode("utf-8") for m, s in modules.items()}
        # The oldest release predates `requires-python` in the project; the next one declares it.
        planted.append(local_index.release_wheel(stem, name, dotted, sources, None if n == 0 else ">=3.7"))
    return planted


def _library(first: str, second: str, minor: int) -> list[tuple[str, bytes]]:
    """Two releases of another team's library, its name spelt `first` by one and `second` by the next, each file
    name spelling it as its METADATA does (`text.utils` -> `text_utils`)."""
    module = first.lower() + ".py"
    planted = []
    for n, (spelling, requires) in enumerate(((first, ">=3.6"), (second, ">=3.8,<4"))):
        dotted = f"1.{minor + n}"
        source = f'"""Shared helpers of {spelling}."""\n__version__ = "{dotted}"\n\n\ndef squash(text):\n'
        source += '    return " ".join(text.split())\n'
        planted.append(
            local_index.release_wheel(spelling.replace(".", "_"), spelling, dotted, {module: source}, requires)
        )
    return planted


@register
class PackageLocalIndex(Operator):
    """A PEP 503 simple repository on a file share for offline hosts: the release, older ones, another library."""

    name = "package-local-index"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0
    final = True  # the index is what the hosts install from: nothing builds on its pages
    once = True  # one share per host

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        found, name = _release(artifact, discovery), project_name(artifact)
        return (
            found is not None
            and name is not None
            and len(_older(found[2], _taken(found[1], discovery))) >= 2
            and not inside_git(f"{ROOT}/x", discovery)
            and not any(a.path.startswith(ROOT + "/") for a in discovery.artifacts)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        found, name = _release(artifact, ctx.discovery), project_name(artifact)
        assert found is not None and name is not None  # applies() checked them
        wheel, stem, version = found
        old = sorted(ctx.rng.sample(_older(version, _taken(stem, ctx.discovery)), 2))
        modules = project_modules(artifact, ctx.discovery) or {f"{stem.lower()}.py": '__version__ = "0"\n'}
        ours = local_index.normalise(name)
        first, second = ctx.rng.choice([lib for lib in LIBRARIES if local_index.normalise(lib[0]) != ours])
        minor = ctx.rng.randrange(5)
        planted = [*_old_releases(stem, name, old, modules), *_library(first, second, minor)]
        paths = [f"{planted_dir(ctx)}/{file}" for file, _ in planted]
        requests = [
            (f"{name}=={_dotted(old[0])}", paths[0]),
            (f"{name}=={_dotted(old[1])}", paths[1]),
            (name, wheel),
            (f"{first.replace('_', '.')}==1.{minor}", paths[2]),  # a spelling no file name uses
            (first.upper(), paths[3]),
        ]
        sources, index, packages = [wheel, *paths], f"{ROOT}/simple", f"{ROOT}/packages"
        code = render(local_index, ["main"], SOURCES=sources, INDEX=index, PACKAGES=packages)
        tests = render(
            local_index,
            ["test_project_list", "test_project_pages", "test_pip_installs_each_release"],
            tag=ctx.tag,
            SOURCES=sources,
            INDEX=index,
            PACKAGES=packages,
            REQUESTS=requests,
        )
        ctx.taken_paths.update([f"{ROOT}/simple/index.html", f"{ROOT}/simple/{ours}/index.html"])
        listed = ", ".join(f"`{p}`" for p in paths[:2])
        theirs = ", ".join(f"`{p}`" for p in paths[2:])
        instruction = " ".join(
            f"""The release goes to hosts without internet access, which install packages from an internal index on
            a file share. Build it under `{ROOT}` as a PEP 503 "simple" repository serving exactly these wheels:
            `{wheel}` (the release built here), the older releases {listed} of the same project, and {theirs},
            releases of another team's library that the hosts need too. Leave these files where they are,
            unchanged. A wheel's project is the `Name` field of its `*.dist-info/METADATA`, normalised: lower-cased,
            with every run of `-`, `_` and `.` replaced by one `-` (`Foo.Bar__baz` is `foo-bar-baz`). Each wheel is
            placed, under its own file name, at `{ROOT}/packages/PROJECT/FILE` (a copy or a symbolic link to it),
            PROJECT its normalised project name. `{ROOT}/simple/index.html` is an HTML page with one `<a>` element
            per project and no other: its text the normalised name and its `href` exactly `PROJECT/`. For each
            project, `{ROOT}/simple/PROJECT/index.html` is an HTML page with one `<a>` element per wheel of the
            project and no other: its text the wheel's file name, its `href` the relative URL
            `../../packages/PROJECT/FILE#sha256=HEX` with HEX the lowercase hexadecimal SHA-256 of the file, and,
            only for a wheel whose METADATA has a `Requires-Python` field, a `data-requires-python` attribute
            holding that field's value, with `<` and `>` written as `&lt;` and `&gt;` (text around the elements
            and their order are free). With `pip install --no-deps --index-url file://{ROOT}/simple`, a
            requirement must then install the release it names, whatever the spelling of the project's name
            (`{requests[0][0]}`, `{requests[3][0]}`), and the newest release of a project when it names no
            version.""".split()
        )
        return Step(
            solution=python_script(code, "main()"),
            tests=tests,
            instruction=instruction,
            dockerfile="".join(plant(p, data) for p, (_, data) in zip(paths, planted, strict=True)),
            produces=[
                Artifact(path=f"{ROOT}/simple/index.html", kind=Kind.TEXT, end_result=True),
                Artifact(path=f"{ROOT}/simple/{ours}/index.html", kind=Kind.TEXT, end_result=True),
            ],
        )
