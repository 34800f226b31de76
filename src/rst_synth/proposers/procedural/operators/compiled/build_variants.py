"""Build-system work on a compiled program: out-of-tree variant builds (release, debug, sanitize) each in
its own folder, automatic header dependencies, an error for an unknown variant, and a `make check` that
compares a variant with the original program on the task's inputs. The tests build a fresh copy, read the
debug information and the dynamic section, touch a header, and break a copy of the code on purpose."""

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
    private_libraries,
)
from rst_synth.proposers.procedural.operators.compiled.shipped import build_variants
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

VARIANTS = {
    "release": "-O2 -DNDEBUG",
    "debug": "-O0 -g",
    "sanitize": "-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer",
}

TESTS = [
    "test_variants_build_apart_with_their_flags",
    "test_variants_behave_as_the_original",
    "test_header_change_rebuilds_exactly_its_includers",
    "test_make_check_compares_with_the_reference",
]
"""The step's checks, in `shipped/build_variants.py`."""


@register
class CBuildVariants(CompiledOperator):
    """Release, debug and sanitizer builds in their own folders, header dependencies and a `make check`."""

    name = "c-build-variants"
    purpose = Purpose.RELEASE
    kinds = (Kind.EXECUTABLE,)
    tools = ("make", "gcc")
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        project = c_project(artifact, discovery)
        private = private_libraries(artifact, discovery)
        # A program relinked against a library of the lineage is the same code: its variants repeat these.
        return project is not None and not private and discovery.has_tool("python3")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = c_project(artifact, ctx.discovery)
        assert project is not None
        folder = folder_for(ctx.discovery, ctx.taken_paths, f"{project.name}-variants")
        makefile = _makefile(project, folder)
        top = _top(project, folder)
        parts = [os.path.relpath(d, top) for d in (project.source_dir, *project.include_dirs, folder)]
        inside = f"$scratch/{os.path.relpath(folder, top)}"
        solution = f"""mkdir -p {q(folder)}
cat > {q(folder)}/Makefile <<'MAKE'
{makefile.rstrip()}
MAKE
# every variant and the check, tried in a scratch copy: the folder keeps only its Makefile
scratch=$(mktemp -d)
for part in {" ".join(q(p) for p in parts)}; do
  mkdir -p "$scratch/$part" && cp -R {q(top)}/"$part"/. "$scratch/$part/"
done
for variant in release debug sanitize; do make -C "{inside}" BUILD=$variant; done
make -C "{inside}" check
rm -rf "$scratch\""""
        sources = [project.main, *project.sources]
        constants = {
            "TOP": top,
            "FOLDER": folder,
            "SRCDIR": project.source_dir,
            "INCLUDE_DIRS": list(project.include_dirs),
            "MAIN": project.main,
            "SOURCES": sources,
            "PROGRAM": project.program,
            "PROGRAM_NAME": project.name,
            "INPUTS": list(project.inputs),
            "RUN_ENV": {},
            "MAKEFILES": ["Makefile"],
        }
        tests = render(build_variants, TESTS, tag=ctx.tag, **constants)
        return Step(
            solution=solution,
            tests=tests,
            instruction=_instruction(project, folder),
            produces=[],
        )


def _top(project: CProject, folder: str) -> str:
    return os.path.commonpath([folder, project.source_dir, *project.include_dirs])


def _makefile(project: CProject, folder: str) -> str:
    cc, flags = ("CXX", "CXXFLAGS") if project.cxx else ("CC", "CFLAGS")
    suffixes = sorted({PurePosixPath(s).suffix for s in (project.main, *project.sources)})
    rules = "".join(
        f"$(OUT)/obj/%.o: $(SRCDIR)/%{x}\n> @mkdir -p $(@D)\n> $({cc}) $(CPPFLAGS) $({flags}) -c $< -o $@\n\n"
        for x in suffixes
    )
    objects = " ".join(f"$(OUT)/obj/{PurePosixPath(s).stem}.o" for s in (project.main, *project.sources))
    inputs = " ".join(project.inputs)
    return f"""# {project.name} built in variants, each under out/<variant>: make BUILD=release|debug|sanitize
.RECIPEPREFIX = >
SHELL = /bin/bash
SRCDIR = {project.relative_sources(folder)}
{cc} = {project.compiler}
BUILD ?= release
FLAGS_release = {VARIANTS["release"]}
FLAGS_debug = {VARIANTS["debug"]}
FLAGS_sanitize = {VARIANTS["sanitize"]}
ifeq ($(filter $(BUILD),release debug sanitize),)
$(error unknown BUILD '$(BUILD)': use release, debug or sanitize)
endif
OUT = out/$(BUILD)
CPPFLAGS = {" ".join(filter(None, [project.cppflags(folder), "-MMD -MP"]))}
{flags} = {" ".join(filter(None, [project.std, "-Wall $(FLAGS_$(BUILD))"]))}
LDLIBS = {" ".join(project.libraries)}
OBJS = {objects}
REFERENCE ?= {project.program}
CHECK_INPUTS ?= {inputs}

.PHONY: all clean check
all: $(OUT)/{project.name}

$(OUT)/{project.name}: $(OBJS)
> $({cc}) $({flags}) -o $@ $^ $(LDLIBS)

{rules}clean:
> rm -rf $(OUT)

check: $(OUT)/{project.name}
> @failed=0; for input in $(or $(CHECK_INPUTS),-); do \\
>   args=$$input; [ "$$input" = - ] && args=; \\
>   if cmp -s <($(REFERENCE) $$args 2>/dev/null </dev/null) <($(OUT)/{project.name} $$args 2>/dev/null </dev/null); \\
>   then echo "PASS $$input"; else echo "FAIL $$input"; failed=1; fi; \\
> done; exit $$failed

-include $(OBJS:.o=.d)
"""


def _instruction(project: CProject, folder: str) -> str:
    sources = ", ".join(f"`{PurePosixPath(s).name}`" for s in (project.main, *project.sources))
    uses = (
        " and the header folders " + ", ".join(f"`{d}`" for d in project.include_dirs) if project.include_dirs else ""
    )
    inputs = " ".join(project.inputs)
    default = f"`{inputs}`" if inputs else "empty"
    return (
        f"Give `{project.name}` variant builds: write `{folder}/Makefile` (GNU make, `{project.compiler}`) that "
        f"reaches the sources only through the relative path `{project.relative_sources(folder)}` (the folder "
        f"`{project.source_dir}`{uses}), so that copies of these folders at the same relative places build the same "
        f"way. `make BUILD=VARIANT` compiles every source of the folder ({sources}) to `out/VARIANT/obj/NAME.o` and "
        f"links `out/VARIANT/{project.name}`, for three variants: `release`, the default when `BUILD` is not given "
        "(`-O2 -DNDEBUG`, no debug information), `debug` (`-O0 -g`: every object's DWARF producer string records "
        "`-O0` and `-g`), and `sanitize` (`-O1 -g -fsanitize=address,undefined`, linked with the AddressSanitizer "
        "and UndefinedBehaviorSanitizer runtimes, which the program then needs). Any other value of `BUILD` makes "
        "`make` fail, building nothing, with an error message that names `BUILD`. The variants never share a file: "
        "building one leaves the others' files untouched, and `make clean` removes `out/VARIANT` of the chosen "
        "variant only. Header dependencies are generated by the compiler: after a header of the project changes, "
        "`make` rebuilds exactly the objects of the sources that include it (directly or through another header) "
        "and relinks, and otherwise a second `make` has nothing to do (`make -q` exits 0). The release and debug "
        f"programs behave as `{project.program}`: {behaviour_text(project.program, project.inputs)}. Finally, "
        "`make check` builds the chosen variant when needed and runs it once per file of `CHECK_INPUTS` (default "
        f"{default}; one run without argument when it is empty) with that file as its only argument, comparing its "
        f"standard output with what `REFERENCE` (default `{project.program}`) prints for the same argument; it "
        "prints one line `PASS FILE` or `FAIL FILE` per run, in that order (`-` for the run without argument), and "
        "exits non-zero when a run failed."
    )
