"""The checks c-shared-library ships, called directly on a small C project built here: the split its
Makefile makes passes them; a program linked statically, an RPATH in place of the RUNPATH, a program that
prints otherwise, debug information that names the build folder and an install without headers fail them."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from rst_synth.proposers.procedural.operators.compiled import shared_library
from rst_synth.proposers.procedural.operators.compiled.project import CProject
from rst_synth.proposers.procedural.operators.compiled.shipped import build_checks
from rst_synth.proposers.procedural.operators.compiled.shipped import shared_library as shipped
from tests.proposers.c_parents import NUMBERS, SOURCES

needs_toolchain = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("gcc", "make", "readelf", "nm", "ar")), reason="needs gcc, make and binutils"
)
pytestmark = needs_toolchain

SONAME, REAL = "libtally.so.2", "libtally.so.2.9.1"


def tally_project(app: Path) -> CProject:
    """The tally sources and data below `app`, and the original program built from them."""
    for path, text in SOURCES.items():
        (app / "src").mkdir(parents=True, exist_ok=True)
        (app / "src" / Path(path).name).write_text(text)
    (app / "data").mkdir()
    (app / "data" / "numbers.txt").write_text(NUMBERS)
    src = app / "src"
    gcc = ["gcc", "-std=c11", "-O2", "-o", str(app / "tally"), str(src / "main.c"), str(src / "tally.c"), "-lm"]
    subprocess.run(gcc, check=True, capture_output=True)
    return CProject(
        program=str(app / "tally"),
        main=str(src / "main.c"),
        sources=(str(src / "tally.c"),),
        headers=(str(src / "tally.h"),),
        libraries=("-lm",),
        inputs=(str(app / "data" / "numbers.txt"),),
        needed=("libm.so.6", "libc.so.6"),
        std="-std=c11",
    )


def set_params(monkeypatch: pytest.MonkeyPatch, module: object, **values: object) -> None:
    """The step's parameters, in the shipped module and in the build_checks helpers it borrows."""
    for name, value in values.items():
        monkeypatch.setattr(module, name, value)
        if hasattr(build_checks, name):
            monkeypatch.setattr(build_checks, name, value)


def make(folder: Path, *args: str) -> None:
    done = subprocess.run(["make", "-C", str(folder), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-1500:]


@pytest.fixture
def split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project split by the Makefile the step's solution writes, built, with the step's parameters set."""
    app = tmp_path / "app"
    project = tally_project(app)
    folder = app / "libtally"
    folder.mkdir()
    (folder / "Makefile").write_text(shared_library._makefile(project, str(folder), "tally", SONAME, REAL))
    make(folder)
    set_params(
        monkeypatch,
        shipped,
        TOP=str(app),
        FOLDER=str(folder),
        SRCDIR=project.source_dir,
        PROGRAM=project.program,
        PROGRAM_NAME="tally",
        LIB="tally",
        SONAME=SONAME,
        REAL=REAL,
        LIB_SOURCES=list(project.sources),
        HEADERS=list(project.headers),
        INCLUDE_DIRS=[],
        STD="-std=c11",
        COMPILER="gcc",
        CXX=False,
        INPUTS=list(project.inputs),
        RUN_ENV={},
        MAKEFILES=["Makefile"],
    )
    return folder


def run_checks(tmp_path: Path, *names: str, module: ModuleType = shipped) -> None:
    """Call the shipped checks `names` of `module`, each with a scratch folder of its own."""
    for name in names:
        test: Callable[[Path], None] = getattr(module, name)
        scratch = tmp_path / "checks" / name
        scratch.mkdir(parents=True)
        test(scratch)


def rebuild(folder: Path, old: str, new: str) -> None:
    makefile = folder / "Makefile"
    text = makefile.read_text()
    assert old in text
    makefile.write_text(text.replace(old, new))
    make(folder, "-B")


def test_the_split_passes_every_check(split: Path, tmp_path: Path) -> None:
    assert sorted(shipped.library_symbols(tmp_path)) == ["tally_file", "tally_rms", "tally_square"]
    assert shipped.exports(split / "lib" / REAL, "--dyn-syms") >= {"tally_file", "tally_rms"}
    run_checks(tmp_path, *shipped.TESTS)


def test_a_statically_linked_program_fails(split: Path, tmp_path: Path) -> None:
    rebuild(split, "$< -Llib -ltally", "$< lib/libtally.a")
    run_checks(tmp_path, "test_relinked_program_behaves_as_the_original")  # it still behaves
    with pytest.raises(AssertionError):
        run_checks(tmp_path, "test_libraries_and_relinked_program")


def test_an_rpath_instead_of_a_runpath_fails(split: Path, tmp_path: Path) -> None:
    rebuild(split, "--enable-new-dtags", "--disable-new-dtags")
    with pytest.raises(AssertionError, match="RPATH"):
        run_checks(tmp_path, "test_libraries_and_relinked_program")


def test_a_program_that_prints_otherwise_fails(split: Path, tmp_path: Path) -> None:
    main = Path(shipped.SRCDIR) / "main.c"
    main.write_text(main.read_text().replace("rms=%.3f", "rms=%.2f"))
    make(split, "-B")
    run_checks(tmp_path, "test_libraries_and_relinked_program")
    with pytest.raises(AssertionError):
        run_checks(tmp_path, "test_relinked_program_behaves_as_the_original")


def test_a_build_that_records_its_folder_fails(split: Path, tmp_path: Path) -> None:
    rebuild(split, "-O2 -Wall -fPIC", "-O2 -Wall -fPIC -g")  # debug information names the build folder
    with pytest.raises(AssertionError, match="lib"):
        run_checks(tmp_path, "test_fresh_copy_builds_the_same_files")


def test_an_install_without_headers_fails(split: Path, tmp_path: Path) -> None:
    rebuild(split, "> install -m 0644 $(HEADERS)", "> true $(HEADERS)")
    with pytest.raises(FileNotFoundError):
        run_checks(tmp_path, "test_install_and_link_against_the_installed_library")
