"""What `package-zipapp` ships: the reference build of a single-file release (a Python zip application of the
package files the wheel holds, a `__main__.py` that runs the console script's function, a `BUILD-INFO.json`
with each file's SHA-256), and the tests that read the archive against the wheel, run its `__main__.py` over a
stub package, and run it beside the installed command on text files and options they make up, with nothing
but `PATH` in the environment and without site-packages. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import zipapp
import zipfile

PYZ = "/app/dist/textstats-0.3.0.pyz"
WHEEL = "/app/dist/textstats-0.3.0-py3-none-any.whl"
NAME = "textstats"
VERSION = "0.3.0"
MODULE = "textstats"
FUNCTION = "main"
SCRIPT = "textstats"
INTERPRETER = "/usr/bin/env python3"
OPTIONS: list[tuple[str, str, list[str]]] = [("--top", "int", []), ("--json", "flag", [])]
"""The command's options the runs draw from: [option, "flag" | "int" | "choice", choices]."""
ALONE = [["--help"], ["--version"]]
"""Argument lists that run alone (their output names the program, so only where it is fixed)."""
VOCAB = ["the", "river", "ran", "cold", "otter's", "den"]
SEED = 1

EDGE_WORDS = ["Grüße", "don't", "'quoted'", "東京", "naïve", "42", "ÉCOLE", "--", "a-b", "x"]
"""Words the generated texts mix in: apostrophes, non-ASCII letters, digits and dashes."""


def package_files(wheel: str | pathlib.Path) -> dict[str, bytes]:
    """The wheel's files outside its `.dist-info` folder (folder entries aside): what the package ships."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: archive.read(name)
            for name in archive.namelist()
            if not name.endswith("/") and not name.split("/")[0].endswith(".dist-info")
        }


def build_info(files: dict[str, bytes]) -> dict[str, object]:
    return {
        "name": NAME,
        "version": VERSION,
        "modules": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }


def main() -> None:
    files = package_files(WHEEL)
    with tempfile.TemporaryDirectory() as tmp:
        stage = pathlib.Path(tmp, "app")
        for name, data in files.items():
            target = stage / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (stage / "__main__.py").write_text(f"import sys\n\nfrom {MODULE} import {FUNCTION}\n\nsys.exit({FUNCTION}())\n")
        (stage / "BUILD-INFO.json").write_text(json.dumps(build_info(files), indent=2) + "\n", encoding="utf-8")
        zipapp.create_archive(stage, PYZ, interpreter=INTERPRETER)
    os.chmod(PYZ, 0o755)  # create_archive adds the owner's execute bit only


def bare_env() -> dict[str, str]:
    """An environment of nothing but a PATH that leads to python3 (so no PYTHONPATH either)."""
    python = shutil.which("python3")
    assert python, "python3 is not on PATH"
    return {"PATH": os.pathsep.join(dict.fromkeys([os.path.dirname(python), "/usr/bin", "/bin"]))}


def stub_module() -> str:
    """A module whose console-script function prints the arguments and returns what the first one says."""
    return (
        "import sys\n\n\n"
        f"def {FUNCTION}(*args, **kwargs):\n"
        "    print('called with', repr(sys.argv[1:]))\n"
        "    return None if sys.argv[1] == 'none' else int(sys.argv[1])\n"
    )


def text_files(folder: pathlib.Path, rng: random.Random) -> list[str]:
    """A few UTF-8 text files of random lines from the task's words and edge cases; their names."""
    names = []
    for k in range(4):
        lines = []
        for _ in range(rng.randint(1, 14)):
            words = rng.choices(VOCAB + EDGE_WORDS, k=rng.randint(1, 11))
            if rng.random() < 0.5:
                words[0] = words[0].capitalize()
            lines.append(" ".join(words) + rng.choice([".", "!", "?", ",", ""]))
        name = f"notes-{k + 1}.txt"
        (folder / name).write_text("\n".join(lines) + rng.choice(["\n", ""]), encoding="utf-8")
        names.append(name)
    return names


def argument_sets(files: list[str], rng: random.Random) -> list[list[str]]:
    """No arguments, the arguments that run alone, a missing file, then files with random options."""
    sets = [[], *ALONE, ["missing.txt"], [files[0], "missing.txt"]]
    for _ in range(6):
        args: list[str] = []
        for option, kind, choices in OPTIONS:
            if rng.random() < 0.5:
                continue
            if kind == "flag":
                args.append(option)
            elif kind == "int":
                args += [option, str(rng.randint(0, 12))]
            else:
                args += [option, rng.choice(choices)]
        sets.append(args + rng.sample(files, rng.randint(1, len(files))))
    return sets


def test_zipapp_is_an_executable_python_archive() -> None:
    with open(PYZ, "rb") as f:
        assert f.readline() == b"#!/usr/bin/env python3\n"
    assert stat.S_IMODE(os.stat(PYZ).st_mode) == 0o755
    with zipfile.ZipFile(PYZ) as archive:
        assert archive.testzip() is None


def test_zipapp_holds_the_wheels_package_and_build_info() -> None:
    files = package_files(WHEEL)
    with zipfile.ZipFile(PYZ) as archive:
        names = sorted(name for name in archive.namelist() if not name.endswith("/"))
        assert names == sorted([*files, "__main__.py", "BUILD-INFO.json"])
        for name, data in files.items():
            assert archive.read(name) == data, name
        info = json.loads(archive.read("BUILD-INFO.json").decode("utf-8"))
    assert info == build_info(files)


def test_zipapp_main_exits_with_the_functions_value(tmp_path: pathlib.Path) -> None:
    with zipfile.ZipFile(PYZ) as archive:
        entry = archive.read("__main__.py")
    stub = tmp_path / "stub.pyz"
    parts = MODULE.split(".")
    with zipfile.ZipFile(stub, "w") as archive:
        archive.writestr("__main__.py", entry)
        for k in range(1, len(parts)):
            archive.writestr("/".join(parts[:k]) + "/__init__.py", "")
        archive.writestr("/".join(parts) + ".py", stub_module())
    for first, code in (("7", 7), ("0", 0), ("none", 0), ("3", 3)):
        args = [first, "two words"]
        command = [sys.executable, "-S", str(stub), *args]
        done = subprocess.run(command, capture_output=True, cwd=tmp_path, env=bare_env(), timeout=60)
        assert done.returncode == code, (args, done.stderr[-500:])
        assert done.stdout.decode().splitlines() == ["called with " + repr(args)], args


def test_zipapp_runs_like_the_installed_command(tmp_path: pathlib.Path) -> None:
    command = shutil.which(SCRIPT)
    assert command, SCRIPT + " is not on PATH"
    rng = random.Random(SEED)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    files = text_files(inputs, rng)
    env = bare_env()
    for i, args in enumerate(argument_sets(files, rng)):
        results = []
        # each run in a fresh copy of the inputs, so a run that writes cannot change what the next one reads
        for j, head in enumerate(([command], [PYZ], [sys.executable, "-S", PYZ])):
            where = shutil.copytree(inputs, tmp_path / f"run{i}-{j}")
            done = subprocess.run([*head, *args], capture_output=True, cwd=where, env=env, timeout=60)
            results.append((done.returncode, done.stdout))
        assert results[1] == results[0], (args, "run as " + PYZ)
        assert results[2] == results[0], (args, "run with python3 -S")
