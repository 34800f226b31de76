"""A compiled program and the source tree it was built from, as the C/C++ operators see them: the
source that defines `main`, the other sources beside it, its headers, the system libraries the
program links and the data files it reads; and the test helpers those operators share (a fresh copy
of the sources, a run of two programs side by side).

The program is an ELF executable the workflow built (discovery reads its dynamic section); the
sources are the task's inputs or files the workflow wrote. Steps never add or change files in the
source folder: what they build lives in a folder of its own under the work root.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import KIND_FIT, Operator
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root

C_SUFFIXES = (".c",)
CXX_SUFFIXES = (".cc", ".cpp", ".cxx")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
SOURCE_SUFFIXES = C_SUFFIXES + CXX_SUFFIXES + HEADER_SUFFIXES
MAIN = re.compile(r"^[ \t]*(?:(?:static|extern)\s+)?int\s+main\s*\(", re.MULTILINE)
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")
"""Program names the steps build on: they become file, library and package names."""
_RUNTIME = re.compile(r"^(libc|libstdc\+\+|libgcc_s|ld-linux[-\w.]*|linux-vdso|libasan|libubsan)\.so")
_SYSTEM_LIB = re.compile(r"^lib([A-Za-z0-9_+-]+)\.so(\.\d+)*$")
DATA_KINDS = (Kind.TEXT, Kind.CSV, Kind.JSON, Kind.CONFIG)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
PLANTED = "incoming"
"""Folder (under the work root) of what steps plant: never a project's source tree."""


class CompiledOperator(Operator):
    """An operator on a compiled program or library: code built from sources, weighed like source code in
    the draw (a step on a program is worth what a step on its sources is)."""

    def fit(self, artifact: Artifact, discovery: Discovery) -> float:
        return self.weight * KIND_FIT[Kind.C_SOURCE]


@dataclass(frozen=True)
class CProject:
    """An ELF program and the folder of sources it was built from."""

    program: str
    main: str
    """The source that defines `main`."""
    sources: tuple[str, ...]
    """The other C/C++ sources of main's folder, sorted."""
    headers: tuple[str, ...]
    """The headers of main's folder, sorted."""
    libraries: tuple[str, ...]
    """Link flags of the system libraries the program needs besides the language runtime (`-lm`)."""
    inputs: tuple[str, ...]
    """Data files the task gives the program (inputs of the workflow), at most three."""
    needed: tuple[str, ...]
    """The program's DT_NEEDED entries."""
    makefile: str | None = None
    """The project's Makefile (in main's folder or a folder above it), when discovery knows it."""
    include_dirs: tuple[str, ...] = ()
    """Header folders other than main's that the Makefile names (`-I include`), as absolute paths."""
    std: str = ""
    """The language standard the Makefile compiles with (`-std=c11`), or empty."""

    @property
    def name(self) -> str:
        return PurePosixPath(self.program).name

    @property
    def source_dir(self) -> str:
        return str(PurePosixPath(self.main).parent)

    @property
    def cxx(self) -> bool:
        return self.main.endswith(CXX_SUFFIXES)

    @property
    def compiler(self) -> str:
        return "g++" if self.cxx else "gcc"

    @property
    def flags_var(self) -> str:
        return "CXXFLAGS" if self.cxx else "CFLAGS"

    def relative_sources(self, folder: str) -> str:
        """The source folder as seen from `folder` (a relative path, e.g. `../src`)."""
        return os.path.relpath(self.source_dir, folder)

    def names(self, paths: tuple[str, ...]) -> list[str]:
        return [PurePosixPath(p).name for p in paths]

    def cppflags(self, folder: str) -> str:
        """Preprocessor flags for the project's header folders, relative to `folder`."""
        return " ".join(f"-I{os.path.relpath(d, folder)}" for d in self.include_dirs)

    @property
    def top(self) -> str:
        """The folder holding the project's Makefile, else main's folder."""
        return str(PurePosixPath(self.makefile).parent) if self.makefile else self.source_dir


def complete(artifact: Artifact) -> bool:
    """Whether the artifact's sample is its whole text."""
    return len(artifact.sample) < SAMPLE_CHARS and len(artifact.sample.encode("utf-8")) == artifact.size


def is_program(artifact: Artifact) -> bool:
    """An ELF executable (not a script, an object file or a shared library)."""
    return artifact.kind is Kind.EXECUTABLE and artifact.details.get("elf") in ("executable", "shared")


def c_project(artifact: Artifact, discovery: Discovery) -> CProject | None:
    """The project of the program `artifact`: the one source beside the others that defines `main`
    (named after the program when several do), its folder's sources and headers; None when the
    program's sources are not known, or the program lies inside a git work tree."""
    planted = f"{work_root(discovery)}/{PLANTED}/"
    if not is_program(artifact) or not NAME.fullmatch(artifact.name) or artifact.path.startswith(planted):
        return None  # a driver an earlier step planted is no program of the project
    if inside_git(artifact.path, discovery):
        return None
    code = [
        a
        for a in discovery.artifacts
        if a.path.endswith(SOURCE_SUFFIXES) and not a.path.startswith(planted) and not inside_git(a.path, discovery)
    ]
    mains = [a for a in code if a.path.endswith(C_SUFFIXES + CXX_SUFFIXES) and MAIN.search(a.sample)]
    named = [a for a in mains if PurePosixPath(a.path).stem == artifact.name]
    main = named[0] if len(named) == 1 else mains[0] if len(mains) == 1 else None
    if main is None or not _related(artifact.path, main.path):
        return None
    makefile = _makefile(main.path, discovery)
    target = re.compile(rf"(?<![\w.-]){re.escape(artifact.name)}(?![\w.-])")
    built_here = makefile is not None and target.search(makefile.sample) is not None
    if main not in named and not built_here:
        return None  # neither named after main's source nor built by the project's Makefile
    folder = main.directory
    beside = [a for a in code if a.directory == folder and a.path != main.path]
    sources = tuple(sorted(a.path for a in beside if a.path.endswith(C_SUFFIXES + CXX_SUFFIXES)))
    if any(MAIN.search(a.sample) for a in beside) or (main.path.endswith(CXX_SUFFIXES)) != any(
        s.endswith(CXX_SUFFIXES) for s in (main.path, *sources)
    ):
        return None  # a second program (a test driver) beside main, or C and C++ mixed
    needed = tuple(str(n) for n in artifact.details.get("needed", []))
    libraries = system_libraries(list(needed), set(private_libraries(artifact, discovery)))
    return CProject(
        program=artifact.path,
        main=main.path,
        sources=sources,
        headers=tuple(sorted(a.path for a in beside if a.path.endswith(HEADER_SUFFIXES))),
        libraries=libraries,
        needed=needed,
        makefile=makefile.path if makefile else None,
        include_dirs=_include_dirs(makefile, folder),
        std=_std(makefile),
        inputs=tuple(data_inputs(discovery, {folder, makefile.directory if makefile else folder})[:3]),
    )


def _makefile(main: str, discovery: Discovery) -> Artifact | None:
    """The nearest Makefile in main's folder or a folder above it (two levels at most)."""
    by_path = {a.path: a for a in discovery.artifacts}
    folder = PurePosixPath(main).parent
    for directory in (folder, folder.parent, folder.parent.parent):
        for name in MAKEFILES:
            if f"{directory}/{name}" in by_path:
                return by_path[f"{directory}/{name}"]
    return None


def _include_dirs(makefile: Artifact | None, source_dir: str) -> tuple[str, ...]:
    if makefile is None:
        return ()
    found = []
    for m in re.finditer(r"(?<!\S)-I\s*([A-Za-z0-9_./+-]+)", makefile.sample):
        path = os.path.normpath(os.path.join(makefile.directory, m.group(1)))
        if path != source_dir and path not in found:
            found.append(path)
    return tuple(found)


def _std(makefile: Artifact | None) -> str:
    m = re.search(r"(?<!\S)-std=([a-z0-9+]+)", makefile.sample) if makefile else None
    return f"-std={m.group(1)}" if m else ""


def private_libraries(program: Artifact, discovery: Discovery) -> dict[str, str]:
    """SONAME -> path of the lineage's shared libraries that `program` needs: those discovery found, and
    those the step that made the program built in the same child (named in its details, not discovered yet)."""
    found = {str(a.details["soname"]): a.path for a in discovery.of_kind(Kind.LIBRARY) if a.details.get("soname")}
    found.update({str(k): str(v) for k, v in dict(program.details.get("private", {})).items()})
    return {soname: path for soname, path in found.items() if soname in program.details.get("needed", [])}


def system_libraries(needed: list[str], private: set[str]) -> tuple[str, ...]:
    """Link flags (`-lm`) of the `NEEDED` entries besides the language runtime and the lineage's own libraries."""
    return tuple(
        f"-l{m.group(1)}"
        for n in needed
        if n not in private and not _RUNTIME.match(n) and (m := _SYSTEM_LIB.match(n)) is not None
    )


def _related(program: str, main: str) -> bool:
    """The program and its sources share a folder below `/` (the project's)."""
    return PurePosixPath(program).parts[:2] == PurePosixPath(main).parts[:2] and len(PurePosixPath(main).parts) > 2


def data_inputs(discovery: Discovery, project_dirs: set[str]) -> list[str]:
    """Text data the task gives its programs: input files of the workflow, by path; not the project's own
    files (its sources, Makefile and README beside them)."""
    return sorted(
        a.path
        for a in discovery.artifacts
        if a.input and a.kind in DATA_KINDS and a.directory not in project_dirs and not a.path.endswith(SOURCE_SUFFIXES)
    )


def folder_for(discovery: Discovery, taken: set[str], name: str) -> str:
    """A new folder `<work root>/<name>` (`<name>2`, ... when a file of the lineage lies there already)."""
    root = work_root(discovery)
    candidate, n = f"{root}/{name}", 2
    while any(p == candidate or p.startswith(candidate + "/") for p in taken):
        candidate = f"{root}/{name}{n}"
        n += 1
    taken.add(candidate + "/")
    return candidate


def lib_name(program: str) -> str:
    """The library name a program's code gets: `numstat` -> `numstat` (libnumstat.so)."""
    return re.sub(r"[^a-z0-9]+", "", program.lower()) or "core"


def behaviour_text(program: str, inputs: tuple[str, ...] | list[str]) -> str:
    """The runs that compare a rebuilt or installed program with the original `program`, as the
    instruction states them (`build_checks.assert_same_runs` runs them)."""
    runs = " and ".join(f"with `{p}`" for p in inputs)
    with_inputs = f", and {runs} as its only argument (each time on a fresh copy of the file)" if runs else ""
    return (
        f"run with no argument{with_inputs}, with standard input empty, the same `argv[0]` and a scratch "
        f"working directory, it writes the same standard output and standard error and exits with the same "
        f"status as `{program}` (runs where `{program}` itself does not finish within 20 seconds are left out)"
    )
