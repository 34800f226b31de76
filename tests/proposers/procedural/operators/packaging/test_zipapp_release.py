"""package-zipapp: where it applies (a project with a console script, its installed version's wheel and its
command installed), the options it reads from the module's argparse calls, a deterministic step that names every
path and rule, the generated tests on its own build from a flat and from a package wheel (and on builds without
the `#!` line, with `__pycache__` inside, or whose `__main__.py` drops the exit status), and a child accepted
against the packaging seed."""

from __future__ import annotations

import os
import random
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_audit
from rst_synth.proposers.procedural.operators.packaging.zipapp_release import options_of
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.packaging.test_wheel_repair import PYPROJECT
from tests.support.operators import assert_accepted, extend_with
from tests.support.tasks import SEEDS

OP = OPERATORS["package-zipapp"]
SEED = SEEDS / "python-cli-package"
WHEEL = "/app/dist/textstats-0.3.0-py3-none-any.whl"
PYZ = "/app/dist/textstats-0.3.0.pyz"
INFO = "/usr/local/lib/python3.11/dist-packages/textstats-0.3.0.dist-info"
CODE = '''"""Wörter zählen: word counts of text files."""
import argparse
import sys

__version__ = "0.3.0"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="textstats", description="Word counts.")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--top", type=int, default=3, help="how many words")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--order", choices=["count", "word"], default="count")
    parser.add_argument("--label", default="")
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    args = parser.parse_args(argv)
    counts = {}
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                for word in f.read().lower().split():
                    counts[word] = counts.get(word, 0) + 1
        except OSError as exc:
            print("textstats:", exc, file=sys.stderr)
            return 1
    key = (lambda kv: (-kv[1], kv[0])) if args.order == "count" else (lambda kv: kv[0])
    ranked = sorted(counts.items(), key=key)[: args.top]
    if args.json:
        print({"words": sum(counts.values()), "top": ranked})
    else:
        for word, n in ranked:
            print(n, word)
    return 0
'''
MODULE = CODE + '\n\nif __name__ == "__main__":\n    sys.exit(main())\n'
NOTES = "Die Otter zählen Reiher am Fluss\nund der Fluss steigt\n"


def artifact(path: str, text: str, given: bool = False) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    found = Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)
    return found.model_copy(update={"input": given})


def discovery(*extra: Artifact, pyproject: str = PYPROJECT, command: bool = True, version: str = "0.3.0") -> Discovery:
    found = [
        artifact("/app/project/pyproject.toml", pyproject),
        artifact("/app/project/textstats.py", MODULE, given=True),
        Artifact(path=WHEEL, kind=Kind.ARCHIVE, details={"format": "zip"}),
        Artifact(path=INFO.replace("0.3.0", version) + "/METADATA", kind=Kind.TEXT),
        artifact("/app/data/notes-1.txt", NOTES, given=True),
        *extra,
    ]
    if command:
        found.append(Artifact(path="/usr/local/bin/textstats", kind=Kind.EXECUTABLE, executable=True))
    return Discovery(workdir="/app", artifacts=found, tools=["python3"])


def build(seed: int = 3, found: Discovery | None = None) -> Step:
    found = found or discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r6s2"))


def test_it_applies_to_an_installed_project_with_a_console_script() -> None:
    pyproject = artifact("/app/project/pyproject.toml", PYPROJECT)
    assert OP.can_use(pyproject, discovery()) and OP.once and OP.final
    assert not OP.can_use(pyproject, discovery(command=False))  # nothing to compare the archive with
    assert not OP.can_use(pyproject, discovery(version="0.4.0"))  # the installed release has no wheel here
    assert not OP.can_use(pyproject, discovery(Artifact(path=PYZ, kind=Kind.ARCHIVE)))
    depends = PYPROJECT.replace('dynamic = ["version"]', 'dynamic = ["version"]\ndependencies = ["rich"]')
    assert not OP.can_use(artifact("/app/project/pyproject.toml", depends), discovery(pyproject=depends))
    bare = PYPROJECT.replace('[project.scripts]\ntextstats = "textstats:main"\n', "")
    assert not OP.can_use(artifact("/app/project/pyproject.toml", bare), discovery(pyproject=bare))


def test_options_read_from_argparse() -> None:
    options, alone = options_of(MODULE)
    assert options == [("--top", "int", []), ("--json", "flag", []), ("--order", "choice", ["count", "word"])]
    assert alone == [["--help"], ["--version"]]
    assert options_of(MODULE.replace('prog="textstats", ', ""))[1] == []  # the archive's name would show
    assert options_of("import sys\n") == ([], [])


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build() and step.produces[0].path == PYZ
    compile(step.tests, "t", "exec")
    for literal in (PYZ, WHEEL, "#!/usr/bin/env python3", "0755", "__main__.py", "BUILD-INFO.json", "sys.argv"):
        assert f"`{literal}`" in step.instruction, literal
    for rule in ("`.dist-info`", "`__pycache__`", "`modules`", "`python3 -S ", "`PATH`", "`--top`", "`--order`"):
        assert rule in step.instruction, rule
    assert "`--label`" not in step.instruction  # a free-text option is no option the tests draw
    assert "'otter'" in step.tests  # the generated texts use the words of the task's input


def package_wheel(layout: str) -> dict[str, bytes]:
    """The wheel's files: the flat module, or a package with its own `__main__.py` (after python-src-layout)."""
    info = "textstats-0.3.0.dist-info"
    if layout == "flat":
        files = {"textstats.py": MODULE.encode()}
    else:
        files = {"textstats/__init__.py": CODE.encode(), "textstats/__main__.py": b"from textstats import main\n"}
    files[info + "/METADATA"] = b"Metadata-Version: 2.1\nName: textstats\nVersion: 0.3.0\n"
    files[info + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[info + "/entry_points.txt"] = b"[console_scripts]\ntextstats = textstats:main\n"
    files[info + "/RECORD"] = wheel_audit.record_of(files, info)
    return files


def run(root: Path, solution: str | None = None, layout: str = "flat") -> dict[str, str]:
    """The generated tests' outcomes after the step's solution (or `solution`), the wheel and its installed
    command below `root` (the command: the wheel's files on a path of their own, started without pip)."""
    files = package_wheel(layout)
    site = root / "site"
    for name, data in files.items():
        if ".dist-info/" not in name:
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_bytes(data)
    command = root / ".bin/textstats"
    command.parent.mkdir(parents=True)
    python = os.path.realpath(sys._base_executable)
    code = f"import sys; sys.path.insert(0, {str(site)!r}); from textstats import main; sys.exit(main())"
    command.write_text(f'#!/bin/sh\nexec {python} -c "{code}" "$@"\n')
    command.chmod(0o755)
    wheel = root / "wheel.whl"
    wheel_audit.write_wheel(wheel, files)
    return outcomes(build(), root, solution=solution, files={WHEEL: wheel.read_bytes()})


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["flat", "package"])
def test_generated_tests_pass_on_the_build(tmp_path: Path, layout: str) -> None:
    results = run(tmp_path, layout=layout)
    assert len(results) == 4 and not failed(results), results
    with zipfile.ZipFile(tmp_path / PYZ.lstrip("/")) as archive:
        names = sorted(n for n in archive.namelist() if not n.endswith("/"))
    assert "BUILD-INFO.json" in names and not any(".dist-info" in n or "__pycache__" in n for n in names)


@pytest.mark.slow
def test_generated_tests_fail_on_subtly_wrong_builds(tmp_path: Path) -> None:
    step = build()
    bare = step.solution.replace("interpreter=INTERPRETER", "interpreter=None")
    assert bare != step.solution  # no `#!` line: the archive runs with python3 only
    assert "test_r6s2_zipapp_is_an_executable_python_archive" in failed(run(tmp_path / "bare", bare))
    compiled = step.solution.replace(
        "zipapp.create_archive(", "__import__('compileall').compile_dir(tmp); zipapp.create_archive("
    )
    assert compiled != step.solution  # the package's bytecode goes in too
    assert failed(run(tmp_path / "compiled", compiled)) == ["test_r6s2_zipapp_holds_the_wheels_package_and_build_info"]
    kept = step.solution.replace("os.chmod(PYZ, 0o755)", "pass")
    assert kept != step.solution  # the mode create_archive leaves, 0744
    assert failed(run(tmp_path / "kept", kept)) == ["test_r6s2_zipapp_is_an_executable_python_archive"]
    ignored = step.solution.replace("sys.exit({FUNCTION}())", "{FUNCTION}()")
    assert ignored != step.solution  # `__main__.py` drops the function's exit status
    assert failed(run(tmp_path / "ignored", ignored)) == [
        "test_r6s2_zipapp_main_exits_with_the_functions_value",
        "test_r6s2_zipapp_runs_like_the_installed_command",
    ]


@pytest.mark.slow
def test_generated_tests_fail_on_a_copy_of_the_project_folder(tmp_path: Path) -> None:
    step = build()
    copied = step.solution.replace(
        "    files = package_files(WHEEL)\n",
        "    files = package_files(WHEEL)\n    files['tests/test_textstats.py'] = b'def test_x():\\n    pass\\n'\n",
    )
    assert copied != step.solution  # a file the wheel does not hold
    assert "test_r6s2_zipapp_holds_the_wheels_package_and_build_info" in failed(run(tmp_path, copied))


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the package built into /app/dist and installed
    proposal, report = extend_with("package-zipapp", parent)
    assert_accepted(proposal, report, "package-zipapp")
