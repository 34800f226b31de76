"""Which object of a program defines each external symbol and which others use it: a tool that reads the
symbol tables of the program's object files, lists the globals no other object uses (candidates for `static`,
which a code health review narrows an interface with) and the symbols none of them defines (what the program
needs from its libraries). The tests run it on multi-file projects they write, whose map they know."""

from __future__ import annotations

from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import CompiledOperator, c_project, folder_for
from rst_synth.proposers.procedural.operators.compiled.shipped import link_map
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, tool_path
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


@register
class CLinkMap(ToolOperator, CompiledOperator):
    """A map of a program's external symbols across its objects, by a tool tested on generated projects."""

    name = "c-link-map"
    purpose = Purpose.TOOL
    kinds = (Kind.EXECUTABLE,)
    tools = ("gcc", "python3")
    final = True  # a report on the sources
    once = True  # the tool is the same program whatever the project

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        project = c_project(artifact, discovery)
        # one source has no cross-references to map
        return project is not None and not project.cxx and bool(project.sources)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = c_project(artifact, ctx.discovery)
        assert project is not None  # applies() checked it
        folder = folder_for(ctx.discovery, ctx.taken_paths, "linkmap")
        tool = tool_path(ctx, artifact, "link_map")
        # The objects are scratch outside the scanned folders: the map is the deliverable, its tests compile their own.
        objects, out = fresh_path(ctx, "/tmp/linkmap", project.name), f"{folder}/{project.name}_map.json"
        sources = [project.main, *project.sources]
        params: dict[str, Any] = {
            "TOOL": tool,
            "SOURCES": sources,
            "INCLUDE_DIRS": list(project.include_dirs),
            "STD": project.std,
            "COMPILER": project.compiler,
            "OBJECTS": objects,
            "OUT": out,
            "SEED": ctx.rng.randrange(10**6),
        }
        flags = " ".join(filter(None, [project.std, *link_map.FLAGS]))
        includes = " ".join(f"-I{d}" for d in (project.source_dir, *project.include_dirs))
        built = [f"{objects}/{s.rsplit('/', 1)[1].rsplit('.', 1)[0]}.o" for s in sources]
        compile_lines = "\n".join(
            f"{project.compiler} {flags} {includes} {q(s)} -o {q(o)}" for s, o in zip(sources, built, strict=True)
        )
        run = f"mkdir -p {q(objects)}\n{compile_lines}\n{q(tool)} {' '.join(q(o) for o in built)} > {q(out)}"
        solution = self.tool_solution(tool, render(link_map, ["main"]), "sys.exit(main(sys.argv))", run, out)
        tests = render(
            link_map,
            [
                "test_map_of_the_program_objects",
                "test_tool_on_generated_projects",
                "test_tool_refuses_what_it_cannot_map",
            ],
            tag=ctx.tag,
            **params,
        )
        names = ", ".join(f"`{s}`" for s in sources)
        instruction = " ".join(
            f"""The review wants to narrow `{project.name}`'s interfaces and needs a map of its external symbols.
            Write a command-line tool `{tool}` (an executable file with a `#!` line): `{tool} OBJECT...` reads the
            symbol tables of ELF object files (with `nm`, `readelf` or otherwise) and prints one JSON object. Only
            symbols with external linkage count (`static` ones are left out). An object defines a symbol when its
            symbol table gives it a definition (code, initialised, zero-initialised or read-only data), and uses
            one when the symbol is undefined in it. An object is named by its file name without the folder. The
            object has the keys `symbols`: an object with a key for every symbol some object defines, whose value
            is an object with exactly the keys `kind` (`function` for code, `data` otherwise), `defined_in` (the
            object's name) and `used_by` (the names of the other objects that use it, sorted in code-point order,
            empty when none does); `static_candidates`: the sorted names of the defined symbols no other object
            uses, `main` left out; and `unresolved`: the sorted names of the symbols some object uses and none
            defines. No argument, a file that is missing or is no object file `nm` reads, two objects with the
            same name, or a symbol two objects define makes it print an error to standard error, nothing to
            standard output, and exit 2. Then compile each of {names} on its own with `{project.compiler} {flags}
            {includes}` into `{objects}/` as the source's file name with `.o` for its suffix, run the tool on those
            objects and save its output as `{out}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.JSON), self.executable(tool)],
        )
