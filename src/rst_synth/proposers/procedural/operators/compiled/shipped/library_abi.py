"""What `c-library-abi` ships: the tests that compute the public API from the library's sources and the
project's headers and check that the shared library exports exactly it under one version node (with the new
SONAME and links), that the relinked program needs that version and runs as the earlier one, and that a fresh
copy builds the same files. The constants are the step's parameters: `shipping.render` sets them (TOP,
INCLUDE_DIRS, PROGRAM_NAME, INPUTS and RUN_ENV also in the borrowed `build_checks` helpers)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import assert_same_runs, fresh_copy, tree

TOP = "/app"
"""The folder holding the step's folder, the source folder and the header folders."""
FOLDER = "/app/libtally3"
"""The step's folder: its Makefile, version script, `lib/` and `bin/`."""
SRCDIR = "/app/src"
INCLUDE_DIRS: list[str] = []
LIB_SOURCES: list[str] = ["/app/src/tally.c"]
HEADERS: list[str] = ["/app/src/tally.h"]
STD = "-std=c11"
COMPILER = "gcc"
LIB = "tally"
SONAME = "libtally.so.3"
REAL = "libtally.so.3.0.0"
NODE = "TALLY_3"
"""The one version node of the script."""
RUNPATH = "$ORIGIN/../lib"
PROGRAM = "/app/libtally/bin/tally"
"""The program the step relinks (the split's)."""
PROGRAM_NAME = "tally"
INPUTS: list[str] = ["/app/data/numbers.txt"]
RUN_ENV: dict[str, str] = {}
BUILD_FILES: list[str] = ["Makefile", "libtally.map"]
"""The build files a fresh copy of the step's folder holds."""


def readelf(*args: object) -> str:
    return subprocess.run(["readelf", *map(str, args)], capture_output=True, text=True, check=True).stdout


def public_api(tmp_path: pathlib.Path) -> set[str]:
    # Functions the library's sources define with external linkage that a header of the project declares.
    flags = ([STD] if STD else []) + [f"-I{d}" for d in [SRCDIR, *INCLUDE_DIRS]]
    defined = set()
    for source in LIB_SOURCES:
        obj = tmp_path / (pathlib.Path(source).name + ".o")
        done = subprocess.run([COMPILER, "-c", "-fPIC", *flags, source, "-o", str(obj)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-1500:]
        for line in readelf("--syms", "-W", obj).splitlines():
            cols = line.split()
            if len(cols) >= 8 and cols[3] == "FUNC" and cols[4] == "GLOBAL" and cols[6] != "UND":
                defined.add(cols[7])
    headers = list(HEADERS) + [p for d in INCLUDE_DIRS for p in pathlib.Path(d).rglob("*") if p.is_file()]
    declared = "\n".join(pathlib.Path(h).read_text(errors="replace") for h in headers)
    return {name for name in defined if re.search(rf"\b{re.escape(name)}\s*\(", declared)}


def exports(path: pathlib.Path | str) -> dict[str, str]:
    found = {}
    for line in readelf("--dyn-syms", "-W", path).splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[0].endswith(":") and cols[4] in ("GLOBAL", "WEAK") and cols[6] != "UND":
            name, _, version = cols[7].partition("@")
            found[name] = version.lstrip("@")
    return found


def test_library_exports_its_api_under_one_version(tmp_path: pathlib.Path) -> None:
    folder = pathlib.Path(FOLDER)
    assert subprocess.run(["make", "-q", "-C", FOLDER]).returncode == 0, "the build is not complete and up to date"
    library = folder / "lib" / REAL
    api = public_api(tmp_path)
    assert api, "the headers declare no function the library defines"
    assert exports(library) == {**{name: NODE for name in api}, NODE: ""}
    assert f"[{SONAME}]" in readelf("-dW", library)
    assert os.readlink(folder / "lib" / SONAME) == REAL and os.readlink(folder / "lib" / f"lib{LIB}.so") == SONAME
    definitions = re.findall(r"Name: (\S+)", readelf("-V", library).split("Version needs")[0])
    assert NODE in definitions, definitions


def test_program_needs_the_versioned_library(tmp_path: pathlib.Path) -> None:
    program = pathlib.Path(FOLDER) / "bin" / PROGRAM_NAME
    dynamic = readelf("-dW", program)
    assert f"Shared library: [{SONAME}]" in dynamic and f"Library runpath: [{RUNPATH}]" in dynamic
    needs = readelf("-V", program).split("Version needs", 1)[-1]
    assert re.search(rf"File: {re.escape(SONAME)}\s+Cnt: \d+\s+\S+\s+Name: {NODE}\b", needs), needs
    assert assert_same_runs(PROGRAM, program, tmp_path) >= 1


def test_fresh_copy_builds_the_same_files(tmp_path: pathlib.Path) -> None:
    folders = [(SRCDIR, ()), (FOLDER, BUILD_FILES), *[(d, ()) for d in INCLUDE_DIRS]]
    folder = fresh_copy(tmp_path / "checkout", folders) / pathlib.Path(FOLDER).relative_to(TOP)
    built = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-1500:] + built.stderr[-1500:]
    for part in ("lib", "bin"):
        assert tree(folder / part) == tree(pathlib.Path(FOLDER) / part), part


TESTS = (
    "test_library_exports_its_api_under_one_version",
    "test_program_needs_the_versioned_library",
    "test_fresh_copy_builds_the_same_files",
)
"""The step's checks, in the order they ship."""
