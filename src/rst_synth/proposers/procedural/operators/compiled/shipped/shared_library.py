"""What `c-shared-library` ships: the tests that check the static and the shared library (members, SONAME,
links, exported symbols computed from the sources), the relinked program (NEEDED, RUNPATH, none of the
library's code, the same runs as the original), a byte-identical build of a fresh copy, and `make install`
with a program compiled against the installed headers and library. The constants are the step's
parameters: `shipping.render` sets them (TOP, INCLUDE_DIRS, PROGRAM_NAME, INPUTS and RUN_ENV also in the
borrowed `build_checks` helpers)."""

from __future__ import annotations

import os
import pathlib
import re
import stat
import subprocess

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import (
    SOURCE_SUFFIXES,
    assert_same_runs,
    fresh_copy,
    make,
    one_run,
    tree,
)

TOP = "/app"
"""The folder holding the step's folder, the source folder and the header folders."""
FOLDER = "/app/libtally"
"""The step's folder: its Makefile, `lib/` and `bin/`."""
SRCDIR = "/app/src"
PROGRAM = "/app/tally"
"""The original program."""
PROGRAM_NAME = "tally"
LIB = "tally"
SONAME = "libtally.so.2"
REAL = "libtally.so.2.9.1"
RUNPATH = "$ORIGIN/../lib"
LIB_SOURCES: list[str] = ["/app/src/tally.c"]
"""The sources of the library (every source of the folder but main's)."""
HEADERS: list[str] = ["/app/src/tally.h"]
INCLUDE_DIRS: list[str] = []
STD = "-std=c11"
COMPILER = "gcc"
CXX = False
INPUTS: list[str] = ["/app/data/numbers.txt"]
RUN_ENV: dict[str, str] = {}
MAKEFILES: list[str] = ["Makefile"]
"""The build files a fresh copy of the step's folder holds."""


def symbols(command: list[str]) -> dict[str, str]:
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return {line.split()[-1]: line.split()[-2] for line in done.stdout.splitlines() if len(line.split()) >= 2}


def exports(path: pathlib.Path | str, table: str = "--syms") -> set[str]:
    # Defined global and weak symbols of default visibility (what a dynamic symbol table exports).
    out = subprocess.run(["readelf", table, "-W", str(path)], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[0].endswith(":") and cols[4] in ("GLOBAL", "WEAK", "UNIQUE"):
            if cols[5] in ("DEFAULT", "PROTECTED") and cols[6] != "UND":
                found.add(cols[7].split("@")[0])
    return found


def dynamic(path: pathlib.Path | str) -> list[tuple[str, str]]:
    out = subprocess.run(["readelf", "-dW", str(path)], capture_output=True, text=True, check=True).stdout
    return [(m.group(1), m.group(2)) for m in re.finditer(r"\((\w+)\)[^\[\n]*\[([^\]]*)\]", out)]


def library_symbols(tmp_path: pathlib.Path) -> dict[str, str]:
    # What the library's sources define (global, in their objects): the exports the tests expect.
    found = {}
    for source in LIB_SOURCES:
        obj = tmp_path / (pathlib.Path(source).name + ".o")
        flags = [STD] if STD else []
        flags += [f"-I{d}" for d in [SRCDIR, *INCLUDE_DIRS]]
        done = subprocess.run(
            [COMPILER, "-c", "-fPIC", "-O2", *flags, source, "-o", str(obj)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-1500:]
        found.update(
            {name: kind for name, kind in symbols(["nm", "--defined-only", str(obj)]).items() if name in exports(obj)}
        )
    return found


def checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    folders = [(SRCDIR, ()), (FOLDER, MAKEFILES), *[(d, ()) for d in INCLUDE_DIRS]]
    return fresh_copy(tmp_path / "checkout", folders) / pathlib.Path(FOLDER).relative_to(TOP)


def test_libraries_and_relinked_program(tmp_path: pathlib.Path) -> None:
    folder = pathlib.Path(FOLDER)
    assert make(FOLDER, "-q").returncode == 0, "the folder's build is not complete and up to date"
    members = subprocess.run(["ar", "t", str(folder / "lib" / f"lib{LIB}.a")], capture_output=True, text=True)
    assert members.returncode == 0
    assert sorted(members.stdout.split()) == sorted(pathlib.Path(s).stem + ".o" for s in LIB_SOURCES)
    assert os.readlink(folder / "lib" / SONAME) == REAL and os.readlink(folder / "lib" / f"lib{LIB}.so") == SONAME
    assert ("SONAME", SONAME) in dynamic(folder / "lib" / REAL)
    want = library_symbols(tmp_path)
    assert exports(folder / "lib" / REAL, "--dyn-syms") == set(want)
    program = folder / "bin" / PROGRAM_NAME
    entries = dynamic(program)
    assert ("NEEDED", SONAME) in entries and ("RUNPATH", RUNPATH) in entries, entries
    assert not [e for e in entries if e[0] == "RPATH"], entries
    defined = symbols(["nm", "--defined-only", str(program)])
    functions = [name for name, kind in want.items() if kind == "T"]
    assert functions and not [f for f in functions if f in defined], "the program carries the library's code"


def test_relinked_program_behaves_as_the_original(tmp_path: pathlib.Path) -> None:
    assert assert_same_runs(PROGRAM, pathlib.Path(FOLDER) / "bin" / PROGRAM_NAME, tmp_path) >= 1


def test_fresh_copy_builds_the_same_files(tmp_path: pathlib.Path) -> None:
    folder = checkout(tmp_path)
    built = make(folder)
    assert built.returncode == 0, built.stdout[-1500:] + built.stderr[-1500:]
    for part in ("lib", "bin"):
        assert tree(folder / part) == tree(pathlib.Path(FOLDER) / part), part


def test_install_and_link_against_the_installed_library(tmp_path: pathlib.Path) -> None:
    folder, stage = checkout(tmp_path), tmp_path / "stage"
    done = make(folder, "install", f"DESTDIR={stage}", "PREFIX=/usr")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    usr = stage / "usr"
    libdir = usr / "lib"
    assert (libdir / f"lib{LIB}.a").is_file() and (libdir / REAL).is_file() and not (libdir / REAL).is_symlink()
    assert os.readlink(libdir / SONAME) == REAL and os.readlink(libdir / f"lib{LIB}.so") == SONAME
    installed = usr / "bin" / PROGRAM_NAME
    assert stat.S_IMODE(installed.stat().st_mode) == 0o755
    for listed in HEADERS:
        assert (usr / "include" / LIB / pathlib.Path(listed).name).read_bytes() == pathlib.Path(listed).read_bytes()
    for include in map(pathlib.Path, INCLUDE_DIRS):
        for header in (p for p in include.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES):
            assert (usr / "include" / header.relative_to(include)).read_bytes() == header.read_bytes(), header
    assert one_run(installed, [], tmp_path / "run") == one_run(PROGRAM, [], tmp_path / "run")
    default = make(folder, "install", f"DESTDIR={tmp_path / 'root'}")
    assert default.returncode == 0 and (tmp_path / "root" / "usr" / "local" / "lib" / f"lib{LIB}.a").is_file()
    declared = "\n".join(pathlib.Path(h).read_text(errors="replace") for h in HEADERS)
    functions = [n for n, k in library_symbols(tmp_path).items() if k == "T" and re.search(rf"\b{n}\s*\(", declared)]
    if CXX or not functions:
        return
    includes = "".join(f"#include <{LIB}/{pathlib.Path(h).name}>\n" for h in HEADERS)
    refs = ", ".join(f"(void *){f}" for f in functions)
    (tmp_path / "use.c").write_text(
        includes + "#include <stdio.h>\nint main(void) { void *used[] = {" + refs + "};\n"
        'printf("%zu\\n", sizeof used / sizeof used[0]); return used[0] == 0; }\n'
    )
    built = subprocess.run(
        [
            "gcc",
            "-Werror=implicit-function-declaration",
            "-I",
            str(usr / "include"),
            str(tmp_path / "use.c"),
            "-o",
            str(tmp_path / "use"),
            "-L",
            str(libdir),
            f"-l{LIB}",
            f"-Wl,-rpath,{libdir}",
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-1500:]
    ran = subprocess.run([str(tmp_path / "use")], capture_output=True, text=True, env=dict(os.environ, LD_BIND_NOW="1"))
    assert ran.returncode == 0 and ran.stdout.strip() == str(len(functions)), ran.stderr[-800:]


TESTS = (
    "test_libraries_and_relinked_program",
    "test_relinked_program_behaves_as_the_original",
    "test_fresh_copy_builds_the_same_files",
    "test_install_and_link_against_the_installed_library",
)
"""The step's checks, in the order they ship."""
