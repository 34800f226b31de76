"""Python packaging: a project the workflow built into a wheel gets a tool that rewrites any wheel
reproducibly (entries in a stated order, fixed timestamps or SOURCE_DATE_EPOCH, normalised permissions,
a regenerated RECORD); the tests check the tool's output on the project's wheel and on wheels they make,
and that two differently packed copies of one wheel come out byte for byte the same."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_reproducible
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


@register
class WheelReproducible(ToolOperator):
    """A tool that rewrites a wheel reproducibly, run on the wheel the workflow built."""

    name = "wheel-reproducible"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    once = True  # the tool is the same program whatever the wheel: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return project_wheel(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "dist-repro")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        wheel = project_wheel(artifact, ctx.discovery)
        assert wheel is not None  # applies() checked it
        tool = tool_path(ctx, artifact, "wheel_normalize")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/dist-repro", PurePosixPath(wheel).name)
        seed = ctx.rng.randrange(10**6)
        run = f"env -u SOURCE_DATE_EPOCH {q(tool)} {q(wheel)} {q(out)}"
        solution = self.tool_solution(tool, render(wheel_reproducible, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            wheel_reproducible,
            [
                "test_normalised_wheel_of_the_project",
                "test_tool_is_reproducible_on_fresh_wheels",
                "test_tool_rejects_what_is_no_wheel",
            ],
            tag=ctx.tag,
            TOOL=tool,
            WHEEL=wheel,
            OUT=out,
            SEED=seed,
        )
        instruction = " ".join(
            f"""Make the project's wheel reproducible. Write a command-line tool `{tool}` (an executable
            file with a `#!` line): `{tool} IN.whl OUT.whl` writes OUT.whl, a zip archive holding exactly the files
            of the wheel IN.whl (directory entries dropped) with the same contents, except the wheel's top-level
            `NAME.dist-info/RECORD`, which is written anew. Entries come in this order: the files outside the
            top-level `*.dist-info` folder sorted by name, then the `*.dist-info` files sorted by name except
            RECORD, then RECORD (names sorted in code-point order). Every entry is deflate-compressed, made on Unix
            (create system 3), with the permission bits `0644` (`0755` when the entry had any execute bit in IN)
            of a regular file (`0o100644`/`0o100755` in the upper 16 bits of the external attributes), and the
            timestamp of the environment variable SOURCE_DATE_EPOCH (seconds since 1970 UTC, read as UTC; a value
            before 1980-01-01 counts as 1980-01-01 00:00:00) rounded down to an even second, or 1980-01-01
            00:00:00 when that variable is unset or not a number. RECORD is CSV (`,`-separated, lines ending in
            `\\n`) with one row per entry in the same order: `NAME,sha256=DIGEST,SIZE`, DIGEST being the
            URL-safe base64 of the SHA-256 of the entry's content without `=` padding and SIZE its length in bytes;
            its own row is `NAME,,`. The same files packed in another order or with other timestamps must give a
            byte-identical OUT.whl. When IN.whl cannot be read, is not a zip archive, or has not exactly one
            top-level `*.dist-info/RECORD`, the tool prints an error to standard error and exits 2; otherwise it
            exits 0. Then, with SOURCE_DATE_EPOCH unset, run it on `{wheel}` (the wheel of `{artifact.path}`) to
            write `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "zip"}),
                self.executable(tool),
            ],
        )
