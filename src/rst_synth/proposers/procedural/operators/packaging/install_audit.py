"""An installed distribution checked against its RECORD: a tool that reports files missing or modified, run
on the package the workflow installed (files nobody recorded are left alone: a later step may write beside
the metadata). The tests run it on installs they fake and tamper with (paths outside the site folder,
bytecode, a changed script)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import install_audit
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

_DIST_INFO = re.compile(r".+-packages/[^/]+\.dist-info/RECORD")


def _installed_record(artifact: Artifact) -> bool:
    return bool(_DIST_INFO.fullmatch(artifact.path)) and artifact.kind is Kind.TEXT


@register
class PythonInstallAudit(ToolOperator):
    """Check an installed distribution's files against its RECORD, with a tool tested on faked installs."""

    name = "python-install-audit"
    purpose = Purpose.RELEASE
    kinds = (Kind.TEXT,)
    final = True  # a verification report
    once = True  # the tool is the same program whatever the distribution

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return _installed_record(artifact) and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "audit"))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        info = artifact.directory
        name = PurePosixPath(info).name
        dist = re.sub(r"[^A-Za-z0-9_]+", "_", name.removesuffix(".dist-info"))
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{dist}_verify_install")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", f"{dist}_install.txt")
        seed = ctx.rng.randrange(10**6)
        run = f"{q(tool)} {q(info)} > {q(out)} || test $? -eq 1"
        solution = self.tool_solution(tool, render(install_audit, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            install_audit,
            [
                "test_verification_of_the_install",
                "test_tool_on_faked_installs",
                "test_tool_rejects_a_folder_without_record",
            ],
            tag=ctx.tag,
            TOOL=tool,
            INFO=info,
            OUT=out,
            SEED=seed,
        )
        instruction = " ".join(
            f"""Verify the installed distribution `{info}` against its RECORD. Write a command-line tool
            `{tool}` (an executable file with a `#!` line): `{tool} FOLDER` takes an installed `*.dist-info`
            folder; its RECORD file is CSV with rows `PATH,HASH,SIZE`, PATH relative to the folder that holds the
            dist-info (it may lead out of it with `..`), HASH `ALGORITHM=DIGEST` (DIGEST the URL-safe base64 of the
            file's digest by that hashlib algorithm, without `=` padding) or empty, SIZE in bytes or empty. For
            each row the tool reports `missing PATH` when the file does not exist, else `modified PATH` when the
            row has a HASH and the file's digest differs, or a SIZE and the file's size differs. PATH is written
            as in RECORD. It prints the problems sorted in code-point order, one per line, and exits 1,
            or prints the single line `ok` and exits 0; without exactly one argument naming a folder that holds
            a RECORD file, or when RECORD cannot be read, it prints an error to standard error, nothing to standard
            output, and exits 2. Then run it on `{info}` and save its output as `{out}` (create the
            folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.TEXT), self.executable(tool)],
        )
