"""A wheel audit: a tool that checks a wheel against the packaging rules it must follow (its file name,
its .dist-info folder, METADATA and WHEEL against the name, version and tags, RECORD against every file,
console-script entry points against the modules shipped), run on the wheel a project was built into. The
tests run it on wheels they break in known ways."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_audit
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


@register
class WheelAudit(ToolOperator):
    """A wheel audit tool with stated packaging rules, run on the wheel the project was built into."""

    name = "wheel-audit"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    final = True  # an audit is a report
    once = True  # the tool is the same program whatever the wheel: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return project_wheel(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "audit")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        wheel = project_wheel(artifact, ctx.discovery)
        assert wheel is not None  # applies() checked it
        tool = tool_path(ctx, artifact, "wheel_audit")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", PurePosixPath(wheel).stem + ".txt")
        params = {"TOOL": tool, "WHEEL": wheel, "OUT": out}
        run = f"{q(tool)} {q(wheel)} > {q(out)} || test $? -eq 1"
        solution = self.tool_solution(tool, render(wheel_audit, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            wheel_audit,
            ["test_audit_of_the_project_wheel", "test_tool_on_broken_wheels", "test_tool_rejects_what_is_no_zip"],
            tag=ctx.tag,
            **params,
        )
        instruction = " ".join(
            f"""Audit the wheel `{wheel}` built from `{artifact.path}`. Write a command-line tool `{tool}` (an
            executable file with a `#!` line): `{tool} WHEEL` checks a wheel file and prints its problems, one per
            line, sorted in code-point order, or the single line `ok` when it has none; it exits 1 when there are
            problems, 0 otherwise. Names are compared after lower-casing and replacing each run of `-`, `_` and
            `.` by `_`. When the file name is not `NAME-VERSION-PY-ABI-PLATFORM.whl` (optionally with a build tag
            after the version) it prints only `bad-filename`; when the archive has not exactly one top-level
            `*.dist-info` folder, or that folder is not `NAME-VERSION.dist-info` for the file name's NAME and
            VERSION, it prints only `dist-info-mismatch`. Otherwise the problems are: `metadata-name` when the
            METADATA `Name` is not NAME, `metadata-version` when its `Version` is not exactly VERSION, `wheel-tag`
            when no `Tag` line of the WHEEL file is `PY-ABI-PLATFORM`; `record-missing PATH` for each file of the
            archive (directories aside) that RECORD (CSV) does not list, `record-extra PATH` for each path RECORD
            lists that is not in the archive, `record-hash PATH` for each listed file other than RECORD itself
            whose row is not `PATH,sha256=DIGEST,SIZE` with the URL-safe base64 SHA-256 of its content (no `=`
            padding) and its size in bytes; and for each console script `SCRIPT = MODULE:FUNCTION` in the
            `[console_scripts]` section of `entry_points.txt`, `entry-point-module SCRIPT` when neither
            `MODULE.py` nor `MODULE/__init__.py` (dots of MODULE as `/`) is in the archive, else
            `entry-point-function SCRIPT` when that file does not define FUNCTION (the part before any `.`) as a
            top-level function (`def` or `async def`). A file that cannot be read or is not a zip archive, or a
            wrong number of arguments, makes it print an error to standard error, nothing to standard output, and
            exit 2. Then run it on `{wheel}` and save its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.TEXT), self.executable(tool)],
        )
