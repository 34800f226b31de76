"""A versioned ABI for a library the lineage split off: a linker version script that exports exactly the
public API (functions the library defines and its headers declare) under one version node and hides the
rest, a new major version since hiding symbols breaks the old ABI, and the program relinked against it.
The tests compute the API from the sources and headers and read the dynamic symbol table and the
program's version needs, rebuild a fresh copy byte for byte and run both programs side by side."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import (
    CompiledOperator,
    CProject,
    behaviour_text,
    c_project,
    folder_for,
    system_libraries,
)
from rst_synth.proposers.procedural.operators.compiled.shared_library import RUNPATH, program_details
from rst_synth.proposers.procedural.operators.compiled.shipped import library_abi as shipped
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


def _project_of(library: Artifact, discovery: Discovery) -> CProject | None:
    """The project of a C program that loads `library` (a split's relinked program), if any: version
    scripts name C symbols (C++ names are mangled)."""
    soname = library.details.get("soname")
    for program in discovery.of_kind(Kind.EXECUTABLE):
        if soname in program.details.get("needed", []):
            project = c_project(program, discovery)
            if project is not None and project.sources and not project.cxx:
                # the library's own system libraries (its code's, not main's) link it
                libraries = system_libraries([str(n) for n in library.details.get("needed", [])], set())
                return replace(project, libraries=tuple(dict.fromkeys(project.libraries + libraries)))
    return None


@register
class CLibraryAbi(CompiledOperator):
    """A version script that exports a split library's public API under one version node, as a new major."""

    name = "c-library-abi"
    purpose = Purpose.RELEASE
    kinds = (Kind.LIBRARY,)
    tools = ("make", "gcc")
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        soname = str(artifact.details.get("soname", ""))
        return (
            artifact.details.get("format") == "shared"
            and re.fullmatch(r"lib[a-z0-9]+\.so\.\d+", soname) is not None
            and _project_of(artifact, discovery) is not None
            and discovery.has_tool("python3")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = _project_of(artifact, ctx.discovery)
        assert project is not None
        old = str(artifact.details["soname"])
        lib, major = old.split(".so.")[0].removeprefix("lib"), int(old.rsplit(".", 1)[1]) + 1
        soname, real, node = f"lib{lib}.so.{major}", f"lib{lib}.so.{major}.0.0", f"{lib.upper()}_{major}"
        folder = folder_for(ctx.discovery, ctx.taken_paths, f"lib{lib}{major}")
        makefile = _makefile(project, folder, lib, soname, real)
        headers = " ".join(
            [*(q(h) for h in project.headers), *(f"$(find {q(d)} -type f)" for d in project.include_dirs)]
        )
        solution = f"""mkdir -p {q(folder)}
# the public API: functions the library's sources define that a header declares
api=$(for source in {" ".join(q(s) for s in project.sources)}; do
  {project.compiler} -c -fPIC {" ".join(q(f) for f in _flags(project))} "$source" -o /tmp/api.o
  readelf --syms -W /tmp/api.o | awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" {{print $8}}'
done | sort -u | while read -r name; do
  if grep -Eqs "\\b$name[[:space:]]*\\(" {headers}; then echo "$name"; fi
done)
{{ echo "{node} {{"; echo "  global:"; for name in $api; do echo "    $name;"; done
  echo "  local:"; echo "    *;"; echo "}};"; }} > {q(folder)}/lib{lib}.map
cat {q(folder)}/lib{lib}.map
cat > {q(folder)}/Makefile <<'MAKE'
{makefile.rstrip()}
MAKE
make -C {q(folder)}
readelf --dyn-syms -W {q(folder)}/lib/{real} | grep '@@'"""
        constants = {
            "TOP": os.path.commonpath([folder, project.source_dir, *project.include_dirs]),
            "FOLDER": folder,
            "SRCDIR": project.source_dir,
            "INCLUDE_DIRS": list(project.include_dirs),
            "LIB_SOURCES": list(project.sources),
            "HEADERS": list(project.headers),
            "STD": project.std,
            "COMPILER": project.compiler,
            "LIB": lib,
            "SONAME": soname,
            "REAL": real,
            "NODE": node,
            "RUNPATH": RUNPATH,
            "PROGRAM": project.program,
            "PROGRAM_NAME": project.name,
            "INPUTS": list(project.inputs),
            "RUN_ENV": {},
            "BUILD_FILES": ["Makefile", f"lib{lib}.map"],
        }
        tests = render(shipped, shipped.TESTS, tag=ctx.tag, **constants)
        shared = {"format": "shared", "soname": soname}
        system = [n for n in project.needed if n != old]
        return Step(
            solution=solution,
            tests=tests,
            instruction=_instruction(project, artifact, folder, lib, soname, real, node),
            produces=[
                Artifact(path=f"{folder}/lib/{real}", kind=Kind.LIBRARY, details=shared),
                Artifact(
                    path=f"{folder}/bin/{project.name}",
                    kind=Kind.EXECUTABLE,
                    executable=True,
                    details=program_details([soname, *system], {soname: f"{folder}/lib/{real}"}),
                ),
            ],
        )


def _flags(project: CProject) -> list[str]:
    return [f for f in [project.std, *(f"-I{d}" for d in (project.source_dir, *project.include_dirs))] if f]


def _makefile(project: CProject, folder: str, lib: str, soname: str, real: str) -> str:
    cc, flags = ("CXX", "CXXFLAGS") if project.cxx else ("CC", "CFLAGS")
    objects = " ".join(f"obj/{PurePosixPath(s).stem}.o" for s in project.sources)
    main_object = f"obj/{PurePosixPath(project.main).stem}.o"
    suffixes = sorted({PurePosixPath(s).suffix for s in (project.main, *project.sources)})
    rules = "".join(
        f"obj/%.o: $(SRCDIR)/%{x}\n> @mkdir -p obj\n> $({cc}) $(CPPFLAGS) $({flags}) -c $< -o $@\n\n" for x in suffixes
    )
    std = f"{project.std} " if project.std else ""
    return f"""# lib{lib} with a versioned ABI: the version script lib{lib}.map decides what is exported.
.RECIPEPREFIX = >
SRCDIR = {project.relative_sources(folder)}
{cc} = {project.compiler}
{flags} = {std}-O2 -Wall -fPIC
CPPFLAGS = {project.cppflags(folder)}
LDLIBS = {" ".join(project.libraries)}
SONAME = {soname}
REAL = {real}
OBJS = {objects}

.PHONY: all
.INTERMEDIATE: $(OBJS) {main_object}
all: lib/lib{lib}.so bin/{project.name}

{rules}lib/$(REAL): $(OBJS) lib{lib}.map
> @mkdir -p lib
> $({cc}) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib{lib}.map -o $@ $(OBJS) $(LDLIBS)

lib/lib{lib}.so: lib/$(REAL)
> ln -sfn $(REAL) lib/$(SONAME) && ln -sfn $(SONAME) $@

bin/{project.name}: {main_object} lib/lib{lib}.so
> @mkdir -p bin
> $({cc}) -o $@ $< -Llib -l{lib} $(LDLIBS) -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib'
"""


def _instruction(project: CProject, library: Artifact, folder: str, lib: str, soname: str, real: str, node: str) -> str:
    sources = ", ".join(f"`{s}`" for s in project.sources)
    headers = [f"`{h}`" for h in project.headers] + [f"the headers under `{d}`" for d in project.include_dirs]
    return (
        f"Give the library `{library.path}` a versioned ABI, in the new folder `{folder}` (leave the earlier "
        f"folders as they are). Its public API is the set of functions that the objects of {sources} define "
        f"with external linkage (global `FUNC` symbols) and that a header of the project declares (the name "
        f"followed by `(` in {', '.join(headers) or 'a header'}); nothing else may be exported. Write the "
        f"linker version script `{folder}/lib{lib}.map` with one version node `{node}` listing exactly those "
        f"functions as `global` and `local: *;` for the rest, and `{folder}/Makefile` (GNU make, "
        f"`{project.compiler}`{f' with `{project.std}`' if project.std else ''}, reaching the sources only "
        f"through the relative path `{project.relative_sources(folder)}`) whose `make` builds "
        f"`lib/{real}` from the same objects with that script: hiding symbols breaks the old ABI, so the "
        f"SONAME becomes `{soname}`, with the links `lib/{soname}` -> `{real}` and `lib/lib{lib}.so` -> "
        f"`{soname}`. Every exported function then carries the version `{node}` (`NAME@@{node}` in `readelf "
        f"--dyn-syms`), and the only other defined symbol is the version node itself. `make` also builds "
        f"`bin/{project.name}`, the program relinked from `{project.main}` against `lib/lib{lib}.so` with the "
        f"RUNPATH `{RUNPATH}`, so that it needs `{soname}` and its version needs record `{node}`; it behaves as "
        f"`{project.program}`: {behaviour_text(project.program, project.inputs)}. Object files are "
        "intermediate (make removes them once linked), a second `make` has nothing to do (`make -q` exits 0), "
        "and a fresh copy (the sources, the Makefile and the script) builds the same files and links under "
        "`lib/` and `bin/`, byte for byte. Build it in the folder."
    )
