"""What the tests of the compiled-program operators share: a fresh copy of a project's sources and build
files (as a checkout would hold them), `make` in a folder, every file of a folder, and the comparison of a
rebuilt or installed program's runs with the original's. The constants are the steps' parameters:
`shipping.render` sets them in each test module that uses these helpers."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from collections.abc import Iterable

TOP = "/app/src"
"""The top folder of the copy: paths below it keep their place."""
INCLUDE_DIRS: list[str] = ["/app/src/include"]
"""Header folders, copied with their subfolders."""
PROGRAM_NAME = "tool"
"""The `argv[0]` the program is run with."""
INPUTS: list[str] = []
"""Files each program is also run on, one at a time."""
RUN_ENV: dict[str, str] = {}
"""Environment the runs add (a library path, a locale)."""

SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx")


def fresh_copy(dest: pathlib.Path | str, folders: Iterable[tuple[str, Iterable[str]]]) -> pathlib.Path:
    # The files a checkout would hold: the sources of each folder (header folders with their
    # subfolders) and the build files of the step's own folder, at the same paths below TOP.
    dest = pathlib.Path(dest)
    for name, keep in folders:
        folder = pathlib.Path(name)
        found = folder.rglob("*") if folder in map(pathlib.Path, INCLUDE_DIRS) else folder.iterdir()
        for path in sorted(found):
            if path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name in keep):
                target = dest / path.relative_to(TOP)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    return dest


def make(directory: pathlib.Path | str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-C", str(directory), *args], capture_output=True, text=True, timeout=timeout)


def tree(folder: pathlib.Path | str) -> dict[str, tuple[str, object]]:
    # Every file and link below `folder` (relative path -> bytes, or the link's target).
    folder = pathlib.Path(folder)
    found: dict[str, tuple[str, object]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = ("link", os.readlink(path))
        elif path.is_file():
            found[str(path.relative_to(folder))] = ("file", path.read_bytes())
    return found


def one_run(program: pathlib.Path | str, args: list[str], scratch: pathlib.Path) -> tuple[int, bytes, bytes] | None:
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    copies = []
    for arg in args:
        shutil.copy2(arg, scratch / pathlib.Path(arg).name)
        copies.append(str(scratch / pathlib.Path(arg).name))
    try:
        done = subprocess.run(
            [PROGRAM_NAME, *copies],
            executable=str(program),
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            env=dict(os.environ, **RUN_ENV),
        )
    except subprocess.TimeoutExpired:
        return None
    return done.returncode, done.stdout, done.stderr


def assert_same_runs(reference: pathlib.Path | str, candidate: pathlib.Path | str, tmp_path: pathlib.Path) -> int:
    compared = 0
    runs: list[list[str]] = [[], *([p] for p in INPUTS)]
    for args in runs:
        want = one_run(reference, args, tmp_path / "run")
        if want is None:
            continue  # the original waits for more than it is given: nothing to compare
        got = one_run(candidate, args, tmp_path / "run")
        assert got == want, (args, got and got[1][-300:], got and got[2][-300:], want[1][-300:], want[2][-300:])
        compared += 1
    return compared
