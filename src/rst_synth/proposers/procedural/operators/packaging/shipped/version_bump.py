"""What `python-version-bump` ships: the tool that finds where a Python project keeps its version (a static
`[project] version`, or the module attribute `[tool.setuptools.dynamic]` points at) and bumps it by stated
rules, pre-releases included (its `main`, written to an executable file); the projects the tests generate, with
decoys (another table's `version`, a commented-out attribute); and the tests that compare the tool's JSON and
rewritten file with the reference. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib
import random
import re
import shutil
import sys
import tomllib
from collections.abc import Callable

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/pyproject_version_bump"
PROJECT = "/app/project"
COPY = "/app/release/textstats-next"
PART = "minor"
OUT = "/app/release/textstats_bump.json"
SEED = 1

VERSION = re.compile(r"(\d+(?:\.\d+){0,2})((?:a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")
PARTS = ["major", "minor", "patch"]


def bumped(version: str, part: str) -> str:
    found = VERSION.fullmatch(version)
    if found is None or part not in PARTS:
        raise ValueError("cannot bump " + repr(version) + " by " + repr(part))
    numbers = [int(n) for n in found.group(1).split(".")] + [0, 0]
    numbers = numbers[:3]
    at = PARTS.index(part)
    unreleased = found.group(2) is not None or found.group(4) is not None
    if not (unreleased and all(n == 0 for n in numbers[at + 1 :])):
        numbers = numbers[:at] + [numbers[at] + 1] + [0] * (2 - at)
    return ".".join(str(n) for n in numbers)


def locate(read: Callable[[str], str | None]) -> tuple[str, int, str]:
    """Where the version is: the file (relative to the project), the line's index, and the version string."""
    text = read("pyproject.toml")
    if text is None:
        raise ValueError("no pyproject.toml")
    project = tomllib.loads(text).get("project", {})
    if isinstance(project.get("version"), str):
        table = ""
        for k, line in enumerate(text.splitlines()):
            if re.match(r"\s*\[", line):
                table = line.strip()
            elif table == "[project]" and re.match(r"\s*version\s*=", line):
                return "pyproject.toml", k, project["version"]
        raise ValueError("version not written in the [project] table")
    dynamic = tomllib.loads(text).get("tool", {}).get("setuptools", {}).get("dynamic", {}).get("version", {})
    attr = dynamic.get("attr") if "version" in project.get("dynamic", []) and isinstance(dynamic, dict) else None
    if not isinstance(attr, str) or "." not in attr:
        raise ValueError("no static version and no dynamic version attr")
    module, name = attr.rsplit(".", 1)
    stem = module.replace(".", "/")
    for path in (f"{stem}.py", f"{stem}/__init__.py", f"src/{stem}.py", f"src/{stem}/__init__.py"):
        source = read(path)
        if source is None:
            continue
        pattern = re.compile(rf"{re.escape(name)}\s*=\s*(['\"])([^'\"]*)\1\s*(#.*)?")
        for k, line in enumerate(source.splitlines()):
            found = pattern.fullmatch(line)
            if found:
                return path, k, found.group(2)
        raise ValueError(path + " assigns no string to " + name)
    raise ValueError("module " + module + " not found")


def bump(folder: str | pathlib.Path, part: str) -> dict[str, str]:
    """Rewrite the project's version in place; what changed."""
    root = pathlib.Path(folder)

    def read(name: str) -> str | None:
        path = root / name
        return path.read_text(encoding="utf-8") if path.is_file() else None

    path, index, old = locate(read)
    new = bumped(old, part)
    text = (root / path).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    line = lines[index]
    quoted = re.search(r"(['\"])" + re.escape(old) + r"\1", line)
    if quoted is None:
        raise ValueError("version literal not found on its line")
    lines[index] = line[: quoted.start()] + quoted.group(1) + new + quoted.group(1) + line[quoted.end() :]
    with open(root / path, "w", encoding="utf-8", newline="") as f:
        f.write("".join(lines))
    return {"file": path, "old": old, "new": new}


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[2] not in PARTS or not pathlib.Path(argv[1]).is_dir():
        print("usage: " + argv[0] + " PROJECT_FOLDER major|minor|patch", file=sys.stderr)
        return 2
    try:
        found = bump(argv[1], argv[2])
    except (OSError, ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        print("cannot bump: " + str(exc), file=sys.stderr)
        return 2
    print(json.dumps(found))
    return 0


def random_version(rng: random.Random) -> str:
    numbers = ".".join(str(rng.choice([0, 0, 1, 2, 9, 10])) for _ in range(rng.choice([2, 3, 3])))
    suffix = rng.choice(["", "", "", "rc1", "a2", "b3", ".dev4", "rc1.dev2", ".post1"])
    return numbers + suffix


def random_project(rng: random.Random, folder: pathlib.Path) -> None:
    """A project whose version is static, or dynamic in a module, a package or a package's module (maybe under
    `src/`), with decoys: another table's `version`, a commented-out assignment, the package's own version."""
    version = random_version(rng)
    where = rng.choice(["static", "module", "package", "nested"])
    decoy = '[tool.other]\nversion = "9.9.9"\n\n'
    head = '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
    if where == "static":
        body = f'{decoy}[project]\nname = "demo"\ndescription = "version = 1"\nversion = "{version}"\n'
        (folder / "pyproject.toml").write_text(head + body, encoding="utf-8")
        return
    module = {"module": "demo_mod", "package": "demo_pkg", "nested": "demo_pkg.meta"}[where]
    body = f'[project]\nname = "demo"\ndynamic = ["version"]\n\n{decoy}[tool.setuptools.dynamic]\n'
    body += f'version = {{attr = "{module}.__version__"}}\n'
    (folder / "pyproject.toml").write_text(head + body, encoding="utf-8")
    base = folder / "src" if rng.random() < 0.4 else folder
    path = base / {"module": "demo_mod.py", "package": "demo_pkg/__init__.py", "nested": "demo_pkg/meta.py"}[where]
    path.parent.mkdir(parents=True, exist_ok=True)
    if where == "nested":
        (path.parent / "__init__.py").write_text('__version__ = "0.0.0"  # not this one\n', encoding="utf-8")
    quote = rng.choice(["'", '"'])
    lines = ['"""Demo."""', f'# __version__ = "{version}0"', "__version_info__ = (1, 2)"]
    lines.append(f"__version__ = {quote}{version}{quote}  # bumped by the release tool")
    path.write_text("\n".join(lines) + "\n\n\ndef main():\n    return __version__\n", encoding="utf-8")


def files_of(folder: pathlib.Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_bump_of_the_project_copy(tmp_path: pathlib.Path) -> None:
    want = tmp_path / "want"
    shutil.copytree(PROJECT, want, symlinks=True)
    found = bump(want, PART)
    assert json.loads(pathlib.Path(OUT).read_text(encoding="utf-8")) == found
    got = pathlib.Path(COPY)
    assert (got / found["file"]).read_bytes() == (want / found["file"]).read_bytes()


def test_tool_on_generated_projects(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(12):
        folder, want = tmp_path / str(k), tmp_path / f"want{k}"
        folder.mkdir()
        random_project(rng, folder)
        shutil.copytree(folder, want)
        part = rng.choice(PARTS)
        found = bump(want, part)
        done = run_tool(TOOL, folder, part)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(done.stdout) == found, (k, part)
        assert files_of(folder) == files_of(want), (k, part)


def test_tool_refuses_what_it_cannot_bump(tmp_path: pathlib.Path) -> None:
    epoch = tmp_path / "epoch"
    epoch.mkdir()
    (epoch / "pyproject.toml").write_text('[project]\nname = "a"\nversion = "1!2.0"\n', encoding="utf-8")
    lost = tmp_path / "lost"
    lost.mkdir()
    text = '[project]\nname = "a"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "gone.V"}\n'
    (lost / "pyproject.toml").write_text(text, encoding="utf-8")
    cases: list[list[object]] = [[], [epoch], [epoch, "huge"], [epoch, "major"], [lost, "patch"], [tmp_path, "minor"]]
    for args in [*cases, [tmp_path / "none", "patch"]]:
        assert_usage_error(run_tool(TOOL, *args), args)
