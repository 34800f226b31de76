"""The next release's version, set where the project keeps it: a tool that finds a Python project's version (a
static `[project] version`, or the module attribute `[tool.setuptools.dynamic]` names, in a module, a package or
under `src/`) and bumps it by stated rules, pre-releases included, changing that literal alone; run on a copy of
the workflow's project. The tests run it on projects they generate, with decoys."""

from __future__ import annotations

from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import version_bump
from rst_synth.proposers.procedural.operators.packaging.wheels import project_name
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


def located(artifact: Artifact, discovery: Discovery) -> str | None:
    """The project's version, when the files that say where it is are all known whole and it can be bumped."""
    by_path = {a.path: a for a in discovery.artifacts}

    def read(name: str) -> str | None:
        found = by_path.get(f"{artifact.directory}/{name}")
        if found is None:
            return None
        if len(found.sample.encode("utf-8")) != found.size:
            raise ValueError("only part of " + found.path + " is known")
        return found.sample

    try:
        _, _, version = version_bump.locate(read)
        version_bump.bumped(version, "patch")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return version


@register
class PythonVersionBump(ToolOperator):
    """A tool that bumps a project's version where the project keeps it, run on a copy of the project."""

    name = "python-version-bump"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    final = True  # the bumped copy is the release candidate's source, no new domain file
    once = True  # the tool is the same program whatever the project

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        if project_name(artifact) is None or inside_git(artifact.path, discovery):
            return False
        if (root + "/").startswith(artifact.directory + "/") or artifact.directory in ("", "/"):
            return False  # a copy of the project would land inside it
        return located(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "release")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        version = located(artifact, ctx.discovery)
        name = project_name(artifact)
        assert version is not None and name is not None  # applies() checked it
        root = work_root(ctx.discovery)
        part = ctx.rng.choice(version_bump.PARTS)
        tool = tool_path(ctx, artifact, "version_bump")
        # The copy is scratch space outside the scanned folders: its files are the project's, unchanged but one.
        copy = fresh_path(ctx, "/tmp/release", f"{name.lower()}-next")
        out = fresh_path(ctx, f"{root}/release", f"{name.lower()}_bump.json")
        params: dict[str, Any] = {"TOOL": tool, "PROJECT": artifact.directory, "COPY": copy, "PART": part}
        params.update(OUT=out, SEED=ctx.rng.randrange(10**6))
        run = f"mkdir -p /tmp/release\ncp -a {q(artifact.directory)} {q(copy)}\n{q(tool)} {q(copy)} {part} > {q(out)}"
        solution = self.tool_solution(tool, render(version_bump, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            version_bump,
            [
                "test_bump_of_the_project_copy",
                "test_tool_on_generated_projects",
                "test_tool_refuses_what_it_cannot_bump",
            ],
            tag=ctx.tag,
            **params,
        )
        instruction = " ".join(
            f"""The next release of `{name}` (now `{version}`) needs its version bumped where the project keeps it.
            Write a command-line tool `{tool}` (an executable file with a `#!` line): `{tool} FOLDER PART` bumps the
            version of the Python project in FOLDER by PART (`major`, `minor` or `patch`) in place. The version is
            the string `version` of the `[project]` table of `FOLDER/pyproject.toml`, written on a line `version =
            ...` of that table; else, when `[project]` lists `version` in `dynamic` and
            `[tool.setuptools.dynamic]` has `version = {{attr = "MODULE.NAME"}}`, it is in the first of
            `MODULE.py`, `MODULE/__init__.py`, `src/MODULE.py` and `src/MODULE/__init__.py` (MODULE's dots as `/`,
            relative to FOLDER) that exists, on its first line that is exactly `NAME = "..."` or `NAME = '...'`
            (no indentation, optionally followed by a `#` comment). A version is one to three dot-separated
            decimal numbers, then optionally a pre-release `aN`, `bN` or `rcN`, then optionally `.postN`, then
            optionally `.devN`. The numbers are padded with zeros to three; when the version has a pre-release
            or a `.dev` part and the numbers after PART are all zero, the new version is those three numbers
            (`1.3.0rc1` by `minor` or `patch` gives `1.3.0`, `2.0.0b1` by `major` gives `2.0.0`); otherwise the
            PART number grows by one and those after it become 0 (`1.3.1rc1` by `minor` gives `1.4.0`,
            `1.2.3.post1` by `patch` gives `1.2.4`); the new version always has three numbers and no suffix. The
            tool replaces the version between its quotes on that one line and changes no other byte of any file,
            then prints one JSON object with exactly the keys `file` (the rewritten file's path relative to
            FOLDER, with `/`), `old` and `new`. A wrong number of arguments, a PART not listed, a FOLDER that is
            no folder or has no readable `pyproject.toml`, a version not found as stated, or one of another form
            (an epoch `1!`, a local `+label`) makes it print an error to standard error, nothing to standard
            output, change nothing and exit 2. Then copy `{artifact.directory}` as `{copy}`, bump the copy by
            `{part}` with the tool and save its output as `{out}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.JSON), self.executable(tool)],
        )
