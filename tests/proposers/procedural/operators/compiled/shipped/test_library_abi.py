"""The checks c-library-abi ships, called directly on a split of a small C project built here: the
versioned library its Makefile and the version script make passes them; a script that exports every
symbol, a script without a version node, a script edited after the build and a build that records its
folder fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.compiled import library_abi, shared_library
from rst_synth.proposers.procedural.operators.compiled.shipped import library_abi as shipped
from tests.proposers.procedural.operators.compiled.shipped import test_shared_library as split_checks
from tests.proposers.procedural.operators.compiled.shipped.test_shared_library import (
    make,
    needs_toolchain,
    set_params,
    tally_project,
)

pytestmark = needs_toolchain

SCRIPT = "TALLY_3 {\n  global:\n    tally_file;\n    tally_rms;\n  local:\n    *;\n};\n"
"""The version script the step's solution writes for the tally library (`tally_square` is in no header)."""


def run_checks(tmp_path: Path, *names: str) -> None:
    split_checks.run_checks(tmp_path, *names, module=shipped)


@pytest.fixture
def versioned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A split (libtally.so.2), then the versioned library libtally.so.3 and the program relinked on it."""
    app = tmp_path / "app"
    project = tally_project(app)
    split = app / "libtally"
    split.mkdir()
    (split / "Makefile").write_text(
        shared_library._makefile(project, str(split), "tally", "libtally.so.2", "libtally.so.2.9.1")
    )
    make(split)
    folder = app / "libtally3"
    folder.mkdir()
    (folder / "libtally.map").write_text(SCRIPT)
    makefile = library_abi._makefile(project, str(folder), "tally", "libtally.so.3", "libtally.so.3.0.0")
    (folder / "Makefile").write_text(makefile)
    make(folder)
    set_params(
        monkeypatch,
        shipped,
        TOP=str(app),
        FOLDER=str(folder),
        SRCDIR=project.source_dir,
        INCLUDE_DIRS=[],
        LIB_SOURCES=list(project.sources),
        HEADERS=list(project.headers),
        STD="-std=c11",
        COMPILER="gcc",
        LIB="tally",
        SONAME="libtally.so.3",
        REAL="libtally.so.3.0.0",
        NODE="TALLY_3",
        PROGRAM=str(split / "bin" / "tally"),
        PROGRAM_NAME="tally",
        INPUTS=list(project.inputs),
        RUN_ENV={},
        BUILD_FILES=["Makefile", "libtally.map"],
    )
    return folder


def new_script(folder: Path, text: str) -> None:
    (folder / "libtally.map").write_text(text)
    make(folder)


def test_the_versioned_library_passes_every_check(versioned: Path, tmp_path: Path) -> None:
    assert shipped.public_api(tmp_path) == {"tally_file", "tally_rms"}
    assert shipped.exports(versioned / "lib" / "libtally.so.3.0.0") == {
        "tally_file": "TALLY_3",
        "tally_rms": "TALLY_3",
        "TALLY_3": "",
    }
    run_checks(tmp_path, *shipped.TESTS)


def test_a_script_that_exports_everything_fails(versioned: Path, tmp_path: Path) -> None:
    new_script(versioned, "TALLY_3 {\n  global:\n    *;\n};\n")
    run_checks(tmp_path, "test_program_needs_the_versioned_library")  # the program still needs TALLY_3
    with pytest.raises(AssertionError):
        run_checks(tmp_path, "test_library_exports_its_api_under_one_version")


def test_a_script_without_a_version_node_fails(versioned: Path, tmp_path: Path) -> None:
    new_script(versioned, SCRIPT.replace("TALLY_3 ", ""))
    for name in ("test_library_exports_its_api_under_one_version", "test_program_needs_the_versioned_library"):
        with pytest.raises(AssertionError):
            run_checks(tmp_path / name, name)


def test_a_script_edited_after_the_build_fails(versioned: Path, tmp_path: Path) -> None:
    script = versioned / "libtally.map"
    script.write_text(SCRIPT.replace("    tally_rms;\n", "    tally_rms;\n    tally_square;\n"))
    with pytest.raises(AssertionError, match="not complete and up to date"):
        run_checks(tmp_path, "test_library_exports_its_api_under_one_version")


def test_a_build_that_records_its_folder_fails(versioned: Path, tmp_path: Path) -> None:
    makefile = versioned / "Makefile"
    makefile.write_text(makefile.read_text().replace("-O2 -Wall -fPIC", "-O2 -Wall -fPIC -g"))
    make(versioned, "-B")  # debug information names the build folder
    run_checks(tmp_path, "test_library_exports_its_api_under_one_version")
    with pytest.raises(AssertionError, match="lib"):
        run_checks(tmp_path, "test_fresh_copy_builds_the_same_files")
