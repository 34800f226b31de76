"""A permissions policy applied and verified: a planted policy file names owners, groups and modes for
a result folder and its files; the step applies it and writes an audit of the state it left."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.files.shipped import permissions
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

DATA_KINDS = (Kind.CSV, Kind.JSON, Kind.TEXT)
MAX_FILES = 12
GROUPS = ("staff", "adm", "users", "backup", "operator")
OWNERS = ("root", "daemon", "backup", "www-data")
"""Accounts and groups of every Debian base image: applying the policy changes no /etc file."""
DIR_MODES = ("2750", "2770", "0750", "2755")
FILE_MODES = ("0640", "0440", "0600", "0660")
_PLAIN = re.compile(r"/[A-Za-z0-9_./-]+")
_BUILD_OUTPUT = re.compile(r"(^|/)(build|dist|__pycache__|node_modules|[^/]+\.egg-info)(/|$)")
"""Folders a build tool writes and rewrites: a policy there governs no result of the workflow."""


def _folder_files(artifact: Artifact, discovery: Discovery) -> list[Artifact]:
    return sorted(
        (a for a in discovery.artifacts if a.directory == artifact.directory and not a.path.endswith(".log")),
        key=lambda a: a.path,
    )


@register
class PermissionsPolicy(Operator):
    """Apply a planted permissions policy to a result folder and audit the outcome."""

    name = "permissions-policy"
    bookkeeping = True  # its audit lists the policy back: at most one such step in a lineage
    purpose = Purpose.PREPARE
    changes_input = True
    kinds = DATA_KINDS
    tools = ("python3",)
    weight = 1.0  # a few chown and chmod calls: less reasoning than a tool with a contract

    once = True  # a second folder would repeat the same work under another name

    def input_of(self, artifact: Artifact) -> str:
        return artifact.directory

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root, folder = work_root(discovery), artifact.directory
        files = _folder_files(artifact, discovery)
        return (
            folder.startswith(root + "/")
            and bool(_PLAIN.fullmatch(folder))
            and not _BUILD_OUTPUT.search(folder)
            and not inside_git(artifact.path, discovery)
            and 0 < len(files) <= MAX_FILES
            and all(a.kind in DATA_KINDS and not a.executable and _PLAIN.fullmatch(a.path) for a in files)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        folder = artifact.directory
        files = [a.path for a in _folder_files(artifact, ctx.discovery)]
        slug = re.sub(r"[^a-z0-9]+", "_", PurePosixPath(folder).name.lower()).strip("_")[:16] or "data"
        group = ctx.rng.choice(GROUPS)
        lines = [f"# Access policy for {folder}", f"dir {folder} root:{group} {ctx.rng.choice(DIR_MODES)}"]
        for path in files:
            owner = ctx.rng.choice(OWNERS)
            lines.append(f"file {path} {owner}:{ctx.rng.choice((group, owner, 'root'))} {ctx.rng.choice(FILE_MODES)}")
        text = "\n".join(lines) + "\n"
        policy = f"{planted_dir(ctx)}/{slug}.policy"
        audit = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", f"{slug}_{ctx.tag}_permissions.txt")
        params = {"POLICY": policy, "AUDIT": audit}
        solution = python_script(render(permissions, ["apply_policy"], **params), "apply_policy()")
        tests = render(permissions, ["test_policy_applied", "test_audit_matches_the_state"], tag=ctx.tag, **params)
        listed = ", ".join(f"`{path}`" for path in files)
        instruction = (
            f"Apply the access policy `{policy}` to the folder `{folder}` and its files {listed}, and verify "
            "it. The policy file has "
            "one rule per line (blank lines and lines starting with `#` are ignored): `dir PATH OWNER:GROUP MODE` "
            "and `file PATH OWNER:GROUP MODE`: PATH gets that owner and group (existing accounts and groups) and "
            "exactly those permission bits (MODE is four octal digits, e.g. `2750` with the setgid bit). Then "
            f"write the audit `{audit}`: one line per `dir` or `file` "
            "rule, ordered by path in code-point order, `PATH OWNER:GROUP MODE` as the path actually is after "
            "your change (owner and group names, four-digit octal mode), each line ending with `\\n`."
        )
        return Step(
            consumes=folder,
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(policy, text),
            produces=[Artifact(path=audit, kind=Kind.TEXT, bookkeeping=True, details={"lines": len(files) + 1})],
        )
