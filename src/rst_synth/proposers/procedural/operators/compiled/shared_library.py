"""A program split into a library and a thin program: the code beside `main` built as a static and a
versioned shared library (SONAME, symbolic links, installed headers), the program relinked against it
and found through a relative RUNPATH; checked by symbols and dynamic sections computed from the
sources, by a byte-identical build from a fresh copy, and by running both programs side by side."""

from __future__ import annotations

import os
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
    lib_name,
    private_libraries,
)
from rst_synth.proposers.procedural.operators.compiled.shipped import shared_library as shipped
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

RUNPATH = "$ORIGIN/../lib"


def program_details(needed: list[str], private: dict[str, str]) -> dict[str, object]:
    """ELF details of a program a step relinks against its library, with the library's path: a later step
    of the same child sees the program before discovery has found the library."""
    return {"elf": "shared", "interp": True, "needed": needed, "runpath": RUNPATH, "private": private}


@register
class CSharedLibrary(CompiledOperator):
    """Split a program's code into a static and a shared library and relink the program against it."""

    name = "c-shared-library"
    purpose = Purpose.RELEASE
    kinds = (Kind.EXECUTABLE,)
    tools = ("make", "gcc")
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        project = c_project(artifact, discovery)
        private = private_libraries(artifact, discovery)
        # A program that loads a library of the lineage is a split already: splitting it again repeats it.
        return project is not None and bool(project.sources) and not private and discovery.has_tool("python3")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = c_project(artifact, ctx.discovery)
        assert project is not None
        lib = lib_name(project.name)
        folder = folder_for(ctx.discovery, ctx.taken_paths, f"lib{lib}")
        major = ctx.rng.randint(1, 4)
        version = f"{major}.{ctx.rng.randint(0, 9)}.{ctx.rng.randint(0, 9)}"
        soname, real = f"lib{lib}.so.{major}", f"lib{lib}.so.{version}"
        makefile = _makefile(project, folder, lib, soname, real)
        solution = f"""mkdir -p {q(folder)}
cat > {q(folder)}/Makefile <<'MAKE'
{makefile.rstrip()}
MAKE
make -C {q(folder)}
readelf -d {q(folder)}/bin/{q(project.name)} | grep -E 'NEEDED|RUNPATH'
nm -D --defined-only {q(folder)}/lib/{real}"""
        constants = {
            "TOP": os.path.commonpath([folder, project.source_dir, *project.include_dirs]),
            "FOLDER": folder,
            "SRCDIR": project.source_dir,
            "PROGRAM": project.program,
            "PROGRAM_NAME": project.name,
            "LIB": lib,
            "SONAME": soname,
            "REAL": real,
            "RUNPATH": RUNPATH,
            "LIB_SOURCES": list(project.sources),
            "HEADERS": list(project.headers),
            "INCLUDE_DIRS": list(project.include_dirs),
            "STD": project.std,
            "COMPILER": project.compiler,
            "CXX": project.cxx,
            "INPUTS": list(project.inputs),
            "RUN_ENV": {},
            "MAKEFILES": ["Makefile"],
        }
        tests = render(shipped, shipped.TESTS, tag=ctx.tag, **constants)
        instruction = _instruction(project, folder, lib, soname, real)
        static = f"{folder}/lib/lib{lib}.a"
        shared = f"{folder}/lib/{real}"
        members = [PurePosixPath(s).stem + ".o" for s in project.sources]
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=shared, kind=Kind.LIBRARY, details={"format": "shared", "soname": soname}),
                Artifact(path=static, kind=Kind.LIBRARY, details={"format": "static", "members": members}),
                Artifact(
                    path=f"{folder}/bin/{project.name}",
                    kind=Kind.EXECUTABLE,
                    executable=True,
                    details=program_details([soname, *project.needed], {soname: shared}),
                ),
            ],
        )


def _makefile(project: CProject, folder: str, lib: str, soname: str, real: str) -> str:
    cc = "CXX" if project.cxx else "CC"
    flags = project.flags_var
    objects = " ".join(f"obj/{PurePosixPath(s).stem}.o" for s in project.sources)
    main_object = f"obj/{PurePosixPath(project.main).stem}.o"
    compile_line = f"> $({cc}) $(CPPFLAGS) $({flags}) -c $< -o $@"
    suffixes = sorted({PurePosixPath(s).suffix for s in (project.main, *project.sources)})
    rules = "".join(f"obj/%.o: $(SRCDIR)/%{x} $(HEADERS)\n> @mkdir -p obj\n{compile_line}\n\n" for x in suffixes)
    headers = " ".join(f"$(SRCDIR)/{n}" for n in project.names(project.headers))
    include = [os.path.relpath(d, folder) for d in project.include_dirs]
    install_headers = f"> install -m 0644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/{lib}/\n" if headers else ""
    install_headers += "".join(f"> cp -R {d}/. $(DESTDIR)$(PREFIX)/include/\n" for d in include)
    headers += "".join(f" $(shell find {d} -type f)" for d in include)
    std = f"{project.std} " if project.std else ""
    return f"""# lib{lib}: the code beside {PurePosixPath(project.main).name} as libraries, and {project.name} on them.
.RECIPEPREFIX = >
SRCDIR = {project.relative_sources(folder)}
{cc} = {project.compiler}
{flags} = {std}-O2 -Wall -fPIC
CPPFLAGS = {project.cppflags(folder)}
LDLIBS = {" ".join(project.libraries)}
SONAME = {soname}
REAL = {real}
PREFIX ?= /usr/local
OBJS = {objects}
HEADERS = {headers}

.PHONY: all install
.INTERMEDIATE: $(OBJS) {main_object}
all: lib/lib{lib}.a lib/lib{lib}.so bin/{project.name}

{rules}lib/lib{lib}.a: $(OBJS)
> @mkdir -p lib
> rm -f $@ && ar rcs $@ $^

lib/$(REAL): $(OBJS)
> @mkdir -p lib
> $({cc}) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

lib/lib{lib}.so: lib/$(REAL)
> ln -sfn $(REAL) lib/$(SONAME) && ln -sfn $(SONAME) $@

bin/{project.name}: {main_object} lib/lib{lib}.so
> @mkdir -p bin
> $({cc}) -o $@ $< -Llib -l{lib} $(LDLIBS) -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib'

install: all
> mkdir -p $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/{lib}
> cp -P lib/lib{lib}.a lib/$(REAL) lib/$(SONAME) lib/lib{lib}.so $(DESTDIR)$(PREFIX)/lib/
> install -m 0755 bin/{project.name} $(DESTDIR)$(PREFIX)/bin/{project.name}
{install_headers}"""


def _instruction(project: CProject, folder: str, lib: str, soname: str, real: str) -> str:
    sources = ", ".join(f"`{s}`" for s in project.sources)
    members = ", ".join(f"`{PurePosixPath(s).stem}.o`" for s in project.sources)
    headers = ", ".join(f"`{h}`" for h in project.headers) or "none"
    folders = ", ".join(f"`{d}`" for d in project.include_dirs)
    system = f" and the system libraries the program links (`{' '.join(project.libraries)}`)" * bool(project.libraries)
    std = f" (`{project.std}`)" if project.std else ""
    uses = f" and the header folders {folders}" if folders else ""
    header_folders = (
        f"; the contents of {folders} go to `$(DESTDIR)$(PREFIX)/include/` with their paths below that folder"
        if folders
        else ""
    )
    consumer = (
        f" A C program that includes those headers as `<{lib}/NAME.h>` compiles against the installed headers and "
        f"links with `-l{lib}` alone."
        if not project.cxx and project.headers
        else ""
    )
    return (
        f"Split `{project.name}` into a library and a thin program, in the new folder `{folder}`; leave "
        f"`{project.source_dir}` and `{project.program}` as they are. Write `{folder}/Makefile` (GNU make, "
        f"`{project.compiler}`{std}) that reaches the sources only through the relative path "
        f"`{project.relative_sources(folder)}` (the folder `{project.source_dir}`{uses}), so that copies of these "
        f"folders at the same relative places elsewhere build the same way. `make` in `{folder}` builds: "
        f"`lib/lib{lib}.a`, a static library whose members are exactly {members}, the objects of {sources} (every "
        f"source of the folder except `{project.main}`, which defines `main`); `lib/{real}`, a shared library of "
        f"the same code compiled position-independent, with the SONAME `{soname}` and linked against the libraries "
        f"its code uses{system}, so that a program linking only `-l{lib}` loads and binds; the symbolic links "
        f"`lib/{soname}` -> `{real}` and `lib/lib{lib}.so` -> `{soname}`; and `bin/{project.name}`, the program "
        f"relinked from `{project.main}` against the shared library. The shared library's dynamic symbol table "
        f"defines exactly the symbols that the objects of those sources define as global or weak with default "
        f"visibility (as `readelf --syms` shows them); the program defines none of the library's functions "
        f"(`T` in `nm`), needs `{soname}` (a `NEEDED` entry) and finds it through a `RUNPATH` entry (not "
        f"`RPATH`) of exactly `{RUNPATH}`, so `bin/` and `lib/` can move together. Run by its "
        f"path, `bin/{project.name}` behaves as the original: {behaviour_text(project.program, project.inputs)}. "
        f"Object files are intermediate (make removes them once linked: the folder keeps the Makefile, `lib/` "
        f"and `bin/`), a second `make` has nothing to do (`make -q` exits 0), and the build is reproducible: "
        f"`make` in a fresh copy (the sources and the Makefile only) produces exactly the same files and links "
        f"under `lib/` and `bin/`, byte for byte (relative paths, no timestamps, no debug information). `make install` "
        f"builds what is missing, then copies the static library, the shared library and both links (as links) "
        f"to `$(DESTDIR)$(PREFIX)/lib`, the program to `$(DESTDIR)$(PREFIX)/bin` (mode `0755`) and the headers of "
        f"the source folder ({headers}) unchanged to `$(DESTDIR)$(PREFIX)/include/{lib}/`{header_folders}; "
        f"`PREFIX` defaults to `/usr/local`.{consumer} Build everything in `{folder}`."
    )
