"""Where a C program's bytes go: a tool that computes the x86-64 layout of the structs its headers define
(offsets, alignment, padding, and the size a reordering of the members would give), the figures a code
health review reads before it changes a struct that is written to disk or sent over a wire. The tests run
the tool on headers they make up and compare it with what gcc says in a program they compile."""

from __future__ import annotations

import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import CompiledOperator, c_project, complete
from rst_synth.proposers.procedural.operators.compiled.shipped import struct_layout
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, tool_path, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

_DEFINES = re.compile(r"\bstruct\s+[A-Za-z_]\w*\s*\{")


def struct_headers(artifact: Artifact, discovery: Discovery) -> list[str]:
    """The program's headers, in path order, when some define a struct and the reference lays all of them out."""
    project = c_project(artifact, discovery)
    if project is None or project.cxx:
        return []
    by_path = {a.path: a for a in discovery.artifacts}
    headers = [by_path[h] for h in project.headers if h in by_path]
    if not any(_DEFINES.search(h.sample) for h in headers) or not all(complete(h) for h in headers):
        return []
    try:
        struct_layout.layout_of([(h.path, h.sample) for h in headers])
    except ValueError:
        return []  # a member of a type the stated rules leave out
    return [h.path for h in headers]


@register
class CStructLayout(ToolOperator, CompiledOperator):
    """The memory layout of a program's structs, by a tool checked against gcc on generated headers."""

    name = "c-struct-layout"
    purpose = Purpose.TOOL
    kinds = (Kind.EXECUTABLE,)
    tools = ("gcc", "python3")
    final = True  # a report on the headers
    once = True  # the tool is the same program whatever the project

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return bool(struct_headers(artifact, discovery))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        headers = struct_headers(artifact, ctx.discovery)
        project = c_project(artifact, ctx.discovery)
        assert headers and project is not None  # applies() checked it
        tool = tool_path(ctx, artifact, "struct_layout")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/layout", f"{project.name}_structs.json")
        params: dict[str, Any] = {"TOOL": tool, "HEADERS": headers, "OUT": out, "COMPILER": project.compiler}
        params["SEED"] = ctx.rng.randrange(10**6)
        run = f"{q(tool)} {' '.join(q(h) for h in headers)} > {q(out)}"
        solution = self.tool_solution(tool, render(struct_layout, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            struct_layout,
            [
                "test_layout_of_the_project_headers",
                "test_tool_on_generated_headers",
                "test_tool_refuses_what_it_cannot_lay_out",
            ],
            tag=ctx.tag,
            **params,
        )
        names = ", ".join(f"`{h}`" for h in headers)
        scalars = "; ".join(
            f"{size}: " + ", ".join(f"`{t}`" for t, s in struct_layout.SCALARS.items() if s == size)
            for size in sorted(set(struct_layout.SCALARS.values()))
        )
        instruction = " ".join(
            f"""Before anyone changes a struct of `{project.name}`, the review needs its memory layout. Write a
            command-line tool `{tool}` (an executable file with a `#!` line): `{tool} HEADER...` reads C headers in
            the order given and prints one JSON object with a key for every struct definition `struct NAME {{
            MEMBERS }}` in them (comments and preprocessor lines ignored; a definition may be part of a `typedef`;
            none is nested in another). MEMBERS are declarations `TYPE DECLARATOR, DECLARATOR...;`, each
            declarator a name with optional leading `*` and optional array sizes `[N]` after it (decimal N).
            `const` and `volatile` are ignored, and an `int` after another word of the type is optional
            (`unsigned int` is `unsigned`, `long int` is `long`). The types, by size in bytes on x86-64 Linux, are
            {scalars}; a scalar is aligned to its size; a pointer to anything is 8 bytes aligned to 8; `struct
            OTHER` is a struct defined before it in the headers given, with that struct's size and alignment; an
            array is its element's size times each N, aligned like its element. Members are placed in declaration
            order, each at the smallest offset at or after the end of the one before that is a multiple of its
            alignment; the struct's alignment is the largest alignment of its members and its size the end of its
            last member rounded up to a multiple of that. NAME's value is an object with `file` (the header's path
            as given on the command line), `size`, `align`, `padding` (size minus the sum of the members' sizes),
            `reordered_size` (the size the same members would give placed in order of decreasing alignment,
            members of equal alignment keeping their order) and `members`: a list in declaration order of objects
            with exactly the keys `name`, `offset` and `size`. A header that cannot be read, a member of a type
            not stated here, a `struct` member defined nowhere before it, a struct defined twice or without
            members, or no argument at all makes it print an error to standard error, nothing to standard output,
            and exit 2. Then run it on {names} (in that order) and save its output as `{out}` (create the
            folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.JSON), self.executable(tool)],
        )
