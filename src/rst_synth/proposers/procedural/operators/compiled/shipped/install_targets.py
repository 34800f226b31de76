"""What `make-install-targets` ships: the tests that install the built program in place (without rebuilding
it), and build, install twice and uninstall from a fresh copy of the Makefile and its sources, staged under
DESTDIR. `make` comes from `build_checks.py`. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import pathlib
import shutil
import stat

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import make

MAKEDIR = "/app"
"""The folder of the Makefile, where the program is built already."""
MAKEFILE = "Makefile"
PROGRAM = "tally"
PREFIX = "/opt/tally"
"""The prefix of the install in place (under the test's DESTDIR)."""
STAGED_PREFIX = "usr/x123"
"""The prefix of the install from a fresh copy, without its leading `/`."""

SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp", ".s", ".S")


def source_copy(makedir: pathlib.Path | str, dest: pathlib.Path | str) -> pathlib.Path:
    # The Makefile and every file of a folder that holds sources: what a fresh checkout would have.
    makedir, dest = pathlib.Path(makedir), pathlib.Path(dest)
    dest.mkdir(parents=True)
    shutil.copy2(makedir / MAKEFILE, dest / MAKEFILE)
    for path in sorted(makedir.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and not path.relative_to(makedir).parts[0] == "build":
            target = dest / path.relative_to(makedir)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return dest


def test_install_in_place_uses_the_built_program(tmp_path: pathlib.Path) -> None:
    program = pathlib.Path(MAKEDIR) / PROGRAM
    before = program.stat().st_mtime_ns
    done = make(MAKEDIR, "install", f"DESTDIR={tmp_path}", f"PREFIX={PREFIX}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    target = tmp_path / PREFIX.lstrip("/") / "bin" / PROGRAM
    assert target.is_file() and stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_bytes() == program.read_bytes() and program.stat().st_mtime_ns == before


def test_fresh_build_installs_and_uninstalls(tmp_path: pathlib.Path) -> None:
    copy = source_copy(MAKEDIR, tmp_path / "checkout")
    stage = tmp_path / "stage"
    done = make(copy, "install", f"DESTDIR={stage}", f"PREFIX=/{STAGED_PREFIX}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    target = stage / STAGED_PREFIX / "bin" / PROGRAM
    assert target.is_file() and stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_bytes() == (copy / PROGRAM).read_bytes()
    again = make(copy, "install", f"DESTDIR={stage}", f"PREFIX=/{STAGED_PREFIX}")
    assert again.returncode == 0, again.stderr[-1500:]
    neighbour = target.parent / "keep.txt"
    neighbour.write_text("not ours\n")
    done = make(copy, "uninstall", f"DESTDIR={stage}", f"PREFIX=/{STAGED_PREFIX}")
    assert done.returncode == 0, done.stderr[-1500:]
    assert not target.exists() and neighbour.read_text() == "not ours\n" and target.parent.is_dir()


def test_default_prefix_is_usr_local(tmp_path: pathlib.Path) -> None:
    copy = source_copy(MAKEDIR, tmp_path / "checkout")
    done = make(copy, "install", f"DESTDIR={tmp_path / 'root'}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert (tmp_path / "root" / "usr" / "local" / "bin" / PROGRAM).is_file()
