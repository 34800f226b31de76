"""What `c-build-variants` ships: the tests that build a fresh copy of the project with the step's Makefile in
each variant (reading the debug information and the dynamic section), compare the variants with the original
program, touch a header and break a copy of the code so that `make check` must fail. The copy, `make` and the
comparison of runs come from `build_checks.py`. The constants are the step's parameters: `shipping.render`
sets them (those `build_checks` reads too, so that its helpers get the step's values)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
from collections.abc import Sequence

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import assert_same_runs, fresh_copy, make

TOP = "/app"
"""The top folder of the copy: the sources, the header folders and the step's folder lie below it."""
FOLDER = "/app/tally-variants"
"""The step's folder, which holds its Makefile."""
SRCDIR = "/app/src"
INCLUDE_DIRS: list[str] = []
MAIN = "/app/src/main.c"
SOURCES = ["/app/src/main.c", "/app/src/tally.c"]
"""Every source of the program, main's first."""
PROGRAM = "/app/tally"
"""The original program, which the variants must behave as."""
PROGRAM_NAME = "tally"
INPUTS: list[str] = ["/app/data/numbers.txt"]
RUN_ENV: dict[str, str] = {}
"""Environment the runs add: only read by `build_checks.one_run`."""
MAKEFILES = ["Makefile"]
"""The build files of the step's folder that a fresh copy holds."""
NOISE = '\n__attribute__((constructor)) static void check_noise(void) { __builtin_puts("noise"); }\n'
"""Appended to a copy of main's source: a program whose output differs, which `make check` must catch."""


def checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    folders: list[tuple[str, Sequence[str]]] = [(SRCDIR, ()), (FOLDER, MAKEFILES), *[(d, ()) for d in INCLUDE_DIRS]]
    return fresh_copy(tmp_path / "checkout", folders) / pathlib.Path(FOLDER).relative_to(TOP)


def readelf(*args: object) -> str:
    return subprocess.run(["readelf", *map(str, args)], capture_output=True, text=True, check=True).stdout


def includes(path: pathlib.Path, seen: set[pathlib.Path], roots: list[pathlib.Path]) -> set[pathlib.Path]:
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


def test_variants_build_apart_with_their_flags(tmp_path: pathlib.Path) -> None:
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


def test_variants_behave_as_the_original(tmp_path: pathlib.Path) -> None:
    folder = checkout(tmp_path)
    for variant in ("release", "debug"):
        built = make(folder, f"BUILD={variant}")
        assert built.returncode == 0, built.stderr[-1500:]
        assert assert_same_runs(PROGRAM, folder / "out" / variant / PROGRAM_NAME, tmp_path) >= 1


def test_header_change_rebuilds_exactly_its_includers(tmp_path: pathlib.Path) -> None:
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


def test_make_check_compares_with_the_reference(tmp_path: pathlib.Path) -> None:
    folder = checkout(tmp_path)
    done = make(folder, "check")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    names = INPUTS or ["-"]
    assert [line for line in done.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))] == [
        f"PASS {name}" for name in names
    ]
    main = tmp_path / "checkout" / pathlib.Path(MAIN).relative_to(TOP)
    main.write_text(main.read_text() + NOISE)
    done = make(folder, "check", "BUILD=debug")
    assert done.returncode != 0
    assert [line for line in done.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))] == [
        f"FAIL {name}" for name in names
    ]
