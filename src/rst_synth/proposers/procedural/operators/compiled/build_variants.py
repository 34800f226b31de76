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
    COPY_PY,
    SAME_RUNS_PY,
    CompiledOperator,
    CProject,
    assignments,
    behaviour_text,
    c_project,
    folder_for,
    private_libraries,
)

VARIANTS = {
    "release": "-O2 -DNDEBUG",
    "debug": "-O0 -g",
    "sanitize": "-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer",
}

VARIANT_TESTS = r"""

def checkout(tmp_path):
    folders = [(SRCDIR, ()), (FOLDER, MAKEFILES), *[(d, ()) for d in INCLUDE_DIRS]]
    return fresh_copy(tmp_path / "checkout", folders) / pathlib.Path(FOLDER).relative_to(TOP)


def readelf(*args):
    return subprocess.run(["readelf", *map(str, args)], capture_output=True, text=True, check=True).stdout


def includes(path, seen, roots):
    # The project headers `path` includes, directly or through other headers.
    text = pathlib.Path(path).read_text(errors="replace")
    for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.MULTILINE):
        for base in [pathlib.Path(path).parent, *roots]:
            if (base / name).is_file():
                found = (base / name).resolve()
                if found not in seen:
                    seen.add(found)
                    includes(found, seen, roots)
                break
    return seen


def test___TAG___variants_build_apart_with_their_flags(tmp_path):
    folder = checkout(tmp_path)
    built = make(folder)
    assert built.returncode == 0, built.stdout[-1500:] + built.stderr[-1500:]
    release = folder / "out" / "release" / PROGRAM_NAME
    assert ".debug_info" not in readelf("-SW", release)
    objects = {p.name: p.stat().st_mtime_ns for p in (folder / "out" / "release" / "obj").glob("*.o")}
    assert sorted(objects) == sorted(pathlib.Path(s).stem + ".o" for s in SOURCES)
    built = make(folder, "BUILD=debug")
    assert built.returncode == 0, built.stdout[-1500:] + built.stderr[-1500:]
    debug = folder / "out" / "debug" / PROGRAM_NAME
    producers = re.findall(r"DW_AT_producer\s*:.*?:\s*(.*)", readelf("--debug-dump=info", debug))
    mine = [p for p in producers if " -O0" in p]
    assert mine and all(" -g" in p for p in mine), producers
    assert len(mine) >= len(SOURCES), producers
    assert {p.name: p.stat().st_mtime_ns for p in (folder / "out" / "release" / "obj").glob("*.o")} == objects
    built = make(folder, "BUILD=sanitize")
    assert built.returncode == 0, built.stdout[-1500:] + built.stderr[-1500:]
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", readelf("-dW", folder / "out" / "sanitize" / PROGRAM_NAME))
    assert any(n.startswith("libasan.so") for n in needed) and any(n.startswith("libubsan.so") for n in needed)
    wrong = make(folder, "BUILD=fast")
    assert wrong.returncode != 0 and "BUILD" in wrong.stdout + wrong.stderr
    assert not (folder / "out" / "fast").exists()
    assert make(folder, "clean", "BUILD=debug").returncode == 0
    assert not (folder / "out" / "debug").exists() and release.is_file()


def test___TAG___variants_behave_as_the_original(tmp_path):
    folder = checkout(tmp_path)
    for variant in ("release", "debug"):
        built = make(folder, f"BUILD={variant}")
        assert built.returncode == 0, built.stderr[-1500:]
        assert assert_same_runs(PROGRAM, folder / "out" / variant / PROGRAM_NAME, tmp_path) >= 1


def test___TAG___header_change_rebuilds_exactly_its_includers(tmp_path):
    folder = checkout(tmp_path)
    assert make(folder).returncode == 0 and make(folder, "-q").returncode == 0
    roots = [(tmp_path / "checkout" / pathlib.Path(d).relative_to(TOP)) for d in [SRCDIR, *INCLUDE_DIRS]]
    sources = [roots[0] / pathlib.Path(s).name for s in SOURCES]
    reach = {s: includes(s, set(), roots) for s in sources}
    headers = sorted({h for found in reach.values() for h in found}, key=lambda h: sum(h in r for r in reach.values()))
    assert headers, "no project header is included"
    header = headers[0]
    past = 1_600_000_000
    for path in (tmp_path / "checkout").rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)
    os.utime(header, (past + 10, past + 10))
    assert make(folder, "-q").returncode != 0
    assert make(folder).returncode == 0 and make(folder, "-q").returncode == 0
    obj = folder / "out" / "release" / "obj"
    for source, found in reach.items():
        rebuilt = (obj / (source.stem + ".o")).stat().st_mtime > past + 10
        assert rebuilt == (header in found), (source.name, header.name)
    assert (folder / "out" / "release" / PROGRAM_NAME).stat().st_mtime > past + 10


def test___TAG___make_check_compares_with_the_reference(tmp_path):
    folder = checkout(tmp_path)
    done = make(folder, "check")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    names = INPUTS or ["-"]
    assert [line for line in done.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))] == [
        f"PASS {name}" for name in names]
    main = tmp_path / "checkout" / pathlib.Path(MAIN).relative_to(TOP)
    main.write_text(main.read_text() + NOISE)
    done = make(folder, "check", "BUILD=debug")
    assert done.returncode != 0
    assert [line for line in done.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))] == [
        f"FAIL {name}" for name in names]
"""
"""The step's checks; `__TAG__` is the step's tag, the constants come before them."""

NOISE = '\n__attribute__((constructor)) static void check_noise(void) { __builtin_puts("noise"); }\n'
"""Appended to a copy of main's source: a program whose output differs, which `make check` must catch."""


@register
class CBuildVariants(CompiledOperator):
    """Release, debug and sanitizer builds in their own folders, header dependencies and a `make check`."""

    name = "c-build-variants"
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
            "NOISE": NOISE,
        }
        tests = assignments(constants) + COPY_PY + SAME_RUNS_PY + VARIANT_TESTS.replace("__TAG__", ctx.tag)
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
        f"Next, give `{project.name}` variant builds: write `{folder}/Makefile` (GNU make, `{project.compiler}`) that "
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
