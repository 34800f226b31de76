"""A broken release candidate repaired: the release pipeline left a patch release's wheel that pip cannot be
trusted with (a RECORD whose hashes, sizes and rows disagree with the archive, METADATA or the dist-info folder
still at the old version, a console script naming a function the module lacks, a module left out); the step
diagnoses each fault and writes a wheel of that release that the tests read by the stated rules and install
with pip. Its output is the project's next wheel, which later steps take as a wheel again."""

from __future__ import annotations

import re
import tomllib
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.operators.packaging.api_compat import project_modules
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_repair
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

_WHEEL_NAME = re.compile(r"([A-Za-z0-9_]+)-(\d+)\.(\d+)\.(\d+)-py3-none-any\.whl")


def _release(artifact: Artifact, discovery: Discovery) -> tuple[str, str, str, dict[str, str], dict[str, str]] | None:
    """The project's wheel, its distribution and version, its modules and console scripts, when all are known
    and every script names a function of one of the `py-modules`."""
    wheel = project_wheel(artifact, discovery)
    found = _WHEEL_NAME.fullmatch(PurePosixPath(wheel).name) if wheel else None
    try:
        project = tomllib.loads(artifact.sample)
    except tomllib.TOMLDecodeError:
        return None
    named = project.get("tool", {}).get("setuptools", {}).get("py-modules")
    scripts = project.get("project", {}).get("scripts")
    modules = project_modules(artifact, discovery)
    if wheel is None or found is None or not isinstance(named, list) or not isinstance(scripts, dict) or not scripts:
        return None
    if sorted(f"{n}.py" for n in named) != sorted(modules):
        return None
    if not all(
        isinstance(v, str) and re.fullmatch(r"(\w+):(\w+)", v) and v.split(":")[0] in named for v in scripts.values()
    ):
        return None
    version = ".".join(found.group(2, 3, 4))
    return wheel, found.group(1), version, {n.removesuffix(".py"): s for n, s in modules.items()}, scripts


@register
class WheelRepair(Operator):
    """Repair a planted broken wheel of the project's next patch release into one pip installs."""

    name = "wheel-repair"
    purpose = Purpose.REPAIR
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one broken candidate per lineage: a second is the same diagnosis again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return _release(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("dist", "incoming")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        found = _release(artifact, ctx.discovery)
        assert found is not None  # applies() checked it
        wheel, dist, version, modules, scripts = found
        major, minor, patch = version.split(".")
        later = f"{major}.{minor}.{int(patch) + 1}"
        packed, _faults = wheel_repair.candidate_bytes(dist, version, later, modules, scripts, ctx.rng)
        name = f"{dist}-{later}-py3-none-any.whl"
        candidate = f"{planted_dir(ctx)}/{name}"
        out = fresh_path(ctx, str(PurePosixPath(wheel).parent), name)
        params = {"CANDIDATE": candidate, "PYPROJECT": artifact.path, "OUT": out}
        solution = f"{folders_of(out)}\n{python_script(render(wheel_repair, ['main'], **params), 'main()')}"
        tests = render(
            wheel_repair,
            [
                "test_repaired_wheel_holds_the_release",
                "test_record_of_the_repaired_wheel",
                "test_pip_installs_the_repaired_wheel",
            ],
            tag=ctx.tag,
            **params,
        )
        project = str(PurePosixPath(artifact.path).parent)
        sources = ", ".join(f"`{project}/{m}.py`" for m in sorted(modules))
        instruction = " ".join(
            f"""The release pipeline left `{candidate}`, the wheel of the patch release {later} of the project
            `{artifact.path}` (the last good one is `{wheel}`), and it is broken: its RECORD, its metadata and its
            entry points disagree with what it holds and with the project. Diagnose it and write the repaired
            wheel `{out}` (a zip archive), of release {later} (the version in the candidate's file name). It holds
            exactly these files (no others; directory entries do not count): every file of the candidate outside
            its `*.dist-info` folder, with the same content; for each module the `py-modules` of `{artifact.path}`
            name ({sources}) that the candidate lacks, that module's file of the project, at the top of the
            archive, with the string its `__version__ = "..."` assignment holds set to `{later}`; and in the folder
            `{dist}-{later}.dist-info`
            (whatever the candidate's dist-info folder is called) the candidate's dist-info files except RECORD
            and `entry_points.txt`, with the same content except that METADATA's `Version` field is `{later}`
            (its other fields unchanged); an `entry_points.txt` with only a `[console_scripts]` section holding
            one `NAME = MODULE:FUNCTION` line for each entry of `[project.scripts]` in `{artifact.path}`; and a new
            `RECORD`: CSV with one row per file of the archive, each file once and no other row, `PATH,HASH,SIZE`
            where HASH is `sha256=` and the URL-safe base64 of the file's SHA-256 digest without `=` padding and
            SIZE its length in bytes, and RECORD's own row `PATH,,`. The repaired wheel must install with `pip
            install --no-index --no-deps --target FOLDER`, report version {later} through `importlib.metadata`
            and have every console script load. Leave the candidate and `{wheel}` as they are.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(candidate, packed),
            produces=[Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "zip"})],
        )
