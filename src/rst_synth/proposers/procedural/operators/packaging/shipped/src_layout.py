"""What `python-src-layout` ships: the reference migration of a single-module project to a package under
`src/` (its `main`: the module's code less its `if __name__ == "__main__":` block as `__init__.py`, a
`__main__.py` that runs the console script's function, `py-modules` replaced by package discovery under
`src`), and the tests that read the new folder, build wheels of both layouts with pip and run the command of
each on the task's inputs. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import ast
import configparser
import email.parser
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

PROJECT = "/app/project"
MODULE = "textstats"
FUNCTION = "main"
SCRIPT = "textstats"
NEW = "/app/project-src"
INPUTS = ["/app/data/notes-1.txt", "/app/data/notes-4.txt"]

PY_MODULES = re.compile(r"(?m)^py-modules\s*=\s*\[[^\]\n]*\]\s*\n")


def is_main_block(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` at the top level of a module."""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def package_code(source: str) -> str:
    """The module's source less its `__main__` blocks."""
    lines = source.splitlines(keepends=True)
    for node in reversed(ast.parse(source).body):
        if is_main_block(node):
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines).rstrip() + "\n"


def main() -> None:
    source = pathlib.Path(PROJECT, MODULE + ".py").read_text(encoding="utf-8")
    package = pathlib.Path(NEW, "src", MODULE)
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(package_code(source), encoding="utf-8")
    (package / "__main__.py").write_text(f"import sys\n\nfrom {MODULE} import {FUNCTION}\n\nsys.exit({FUNCTION}())\n")
    text = PY_MODULES.sub("", pathlib.Path(PROJECT, "pyproject.toml").read_text(encoding="utf-8"))
    text = text.rstrip() + '\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    pathlib.Path(NEW, "pyproject.toml").write_text(text, encoding="utf-8")
    tomllib.loads(text)


def files_below(folder: str | pathlib.Path) -> list[str]:
    return sorted(
        str(p.relative_to(folder))
        for p in pathlib.Path(folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def wheel_of(tree: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """The wheel pip builds of a copy of `tree` (the copy keeps the build's leftovers out of the task)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "-q", "-w"]
    done = subprocess.run([*command, str(out), str(tree)], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    (wheel,) = out.glob("*.whl")
    return wheel


def described(wheel: pathlib.Path) -> tuple[str, list[str], dict[str, str], tuple[str | None, str | None]]:
    """A wheel's file name, its files outside `*.dist-info`, its console scripts, and METADATA's name and version."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(archive.read(info + "/METADATA").decode("utf-8"))
        points = configparser.ConfigParser(delimiters=("=",))
        points.optionxform = str  # type: ignore[assignment,method-assign]  # script names keep their case
        if info + "/entry_points.txt" in names:
            points.read_string(archive.read(info + "/entry_points.txt").decode("utf-8"))
    scripts = dict(points["console_scripts"]) if points.has_section("console_scripts") else {}
    files = sorted(n for n in names if not n.split("/")[0].endswith(".dist-info") and not n.endswith("/"))
    return wheel.name, files, scripts, (meta["Name"], meta["Version"])


def test_new_layout_holds_the_package() -> None:
    init = pathlib.Path(NEW, "src", MODULE, "__init__.py")
    assert files_below(NEW) == ["pyproject.toml", f"src/{MODULE}/__init__.py", f"src/{MODULE}/__main__.py"]
    source = pathlib.Path(PROJECT, MODULE + ".py").read_text(encoding="utf-8")
    want = ast.parse(source)
    want.body = [node for node in want.body if not is_main_block(node)]
    assert ast.dump(ast.parse(init.read_text(encoding="utf-8"))) == ast.dump(want)
    with open(os.path.join(PROJECT, "pyproject.toml"), "rb") as f:
        old = tomllib.load(f)
    with open(os.path.join(NEW, "pyproject.toml"), "rb") as f:
        new = tomllib.load(f)
    assert new["project"] == old["project"] and new["build-system"] == old["build-system"]
    assert "py-modules" not in new.get("tool", {}).get("setuptools", {})


def test_new_layout_builds_the_same_release_and_runs_as_before(tmp_path: pathlib.Path) -> None:
    old_tree = tmp_path / "old"
    old_tree.mkdir()
    for name in ("pyproject.toml", MODULE + ".py"):
        shutil.copy(os.path.join(PROJECT, name), old_tree / name)
    old = described(wheel_of(old_tree, tmp_path / "old-dist"))
    shutil.copytree(NEW, tmp_path / "new", ignore=shutil.ignore_patterns("__pycache__"))
    wheel = wheel_of(tmp_path / "new", tmp_path / "new-dist")
    new = described(wheel)
    assert (new[0], new[2], new[3]) == (old[0], old[2], old[3])
    assert new[1] == [f"{MODULE}/__init__.py", f"{MODULE}/__main__.py"]
    target = tmp_path / "site"
    command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-compile", "-q", "--target"]
    done = subprocess.run([*command, str(target), str(wheel)], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    env = dict(os.environ, PYTHONPATH=str(target))
    runs = [[], ["--help"], *([path] for path in INPUTS), list(INPUTS)]
    for args in runs:
        before = subprocess.run(
            [sys.executable, os.path.join(PROJECT, MODULE + ".py"), *args],
            capture_output=True,
            cwd=tmp_path,
            timeout=60,
        )
        for command in ([sys.executable, "-m", MODULE], [sys.executable, str(target / "bin" / SCRIPT)]):
            after = subprocess.run([*command, *args], capture_output=True, cwd=tmp_path, env=env, timeout=60)
            assert after.returncode == before.returncode, (command, args, after.stderr[-500:])
            if args and args != ["--help"]:
                assert after.stdout == before.stdout, (command, args)
