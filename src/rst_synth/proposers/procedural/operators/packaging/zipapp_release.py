"""Some hosts get the tool without pip: a single-file release of the installed package, a Python zip application
beside its wheel built from the wheel's package files, with a `#!/usr/bin/env python3` line, a `__main__.py`
that runs the console script's function and a `BUILD-INFO.json` of each file's SHA-256. The tests read the
archive against the wheel, run its `__main__.py` over a stub package, and run it beside the installed command on
text files and options they make up (the options read from the project's argparse calls), with nothing but
`PATH` in the environment and without site-packages."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git
from rst_synth.proposers.procedural.operators.packaging.shipped import zipapp_release
from rst_synth.proposers.procedural.operators.packaging.wheels import installed_version, project_name
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

_ENTRY = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)")
_SCRIPT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9-]*")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_VOCAB = ["the", "river", "ran", "cold", "and", "clear", "past", "mill", "otter's", "den", "we", "counted", "herons"]
"""The words of the generated texts where the task has no text input to take them from."""

Option = tuple[str, str, list[str]]


def _entry(artifact: Artifact) -> tuple[str, str, str] | None:
    """(script, module, function) of the project's first console script, when the project depends on nothing
    (the archive holds the package alone)."""
    try:
        project = tomllib.loads(artifact.sample).get("project", {})
    except tomllib.TOMLDecodeError:
        return None
    scripts = project.get("scripts")
    if not isinstance(scripts, dict) or not scripts or project.get("dependencies"):
        return None
    script, value = next(iter(scripts.items()))
    found = _ENTRY.fullmatch(value) if isinstance(value, str) else None
    if found is None or not _SCRIPT.fullmatch(script):
        return None
    return script, found[1], found[2]


def _release(artifact: Artifact, discovery: Discovery) -> tuple[str, str, str] | None:
    """The wheel of the project's installed version, that version, and the single-file release beside it."""
    name = project_name(artifact)
    version = installed_version(name, discovery) if name else None
    if name is None or version is None:
        return None
    prefix = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}-"
    wheels = sorted(
        a.path
        for a in discovery.artifacts
        if a.kind is Kind.ARCHIVE and a.name.endswith(".whl") and a.name.lower().startswith(prefix)
    )
    if not wheels:
        return None
    return wheels[0], version, f"{PurePosixPath(wheels[0]).parent}/{name}-{version}.pyz"


def _installed_command(script: str, discovery: Discovery) -> bool:
    return any(a.executable and a.path.endswith(f"/bin/{script}") for a in discovery.artifacts)


def _module_source(artifact: Artifact, module: str, discovery: Discovery) -> str:
    """The whole source of the console script's module in the project, flat or under `src/`; empty if unknown."""
    base = module.replace(".", "/")
    wanted = [f"{artifact.directory}/{top}{base}{end}" for top in ("", "src/") for end in (".py", "/__init__.py")]
    by_path = {a.path: a for a in discovery.artifacts}
    for path in wanted:
        found = by_path.get(path)
        if found is not None and found.sample and len(found.sample.encode("utf-8")) == found.size:
            return found.sample
    return ""


def _constant(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def options_of(source: str) -> tuple[list[Option], list[list[str]]]:
    """The command's options the runs can draw (flags, integers, fixed choices) from its `add_argument` calls,
    and the arguments that run alone (`--help`, a version option) where `ArgumentParser` fixes the program's
    name (else the archive's name would show in their output)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], []
    options: list[Option] = []
    version, named = "", False
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        func = call.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if called == "ArgumentParser":
            named = named or isinstance(_constant(keywords.get("prog")), str)
        flags = [_constant(a) for a in call.args]
        long = [f for f in flags if isinstance(f, str) and _OPTION.fullmatch(f)]
        if called != "add_argument" or not long or not all(isinstance(f, str) for f in flags):
            continue
        action, kind = _constant(keywords.get("action")), keywords.get("type")
        choices = keywords.get("choices")
        if action in ("store_true", "store_false", "count"):
            options.append((long[0], "flag", []))
        elif action == "version":
            version = long[0]
        elif action is not None or "nargs" in keywords:
            continue
        elif isinstance(kind, ast.Name) and kind.id == "int" and choices is None:
            options.append((long[0], "int", []))
        elif isinstance(choices, (ast.List, ast.Tuple)) and kind is None:
            values = [_constant(v) for v in choices.elts]
            if values and all(isinstance(v, str) for v in values):
                options.append((long[0], "choice", [str(v) for v in values]))
    alone = [["--help"], *([[version]] if version else [])] if named else []
    return options, alone


def _vocabulary(discovery: Discovery) -> list[str]:
    """Words of the task's text inputs (what the command is run on), else a few plain ones."""
    found = [w.lower() for a in discovery.artifacts if a.input and a.kind is Kind.TEXT for w in _WORD.findall(a.sample)]
    words = list(dict.fromkeys(found))[:40]
    return words if len(words) >= 5 else list(_VOCAB)


@register
class PackageZipapp(Operator):
    """A single-file release of the installed package: a zip application built from the wheel's package files."""

    name = "package-zipapp"
    purpose = Purpose.RELEASE
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 2.0
    once = True  # one single-file release of the package per lineage
    final = True  # a release file: nothing builds on it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        entry, release = _entry(artifact), _release(artifact, discovery)
        if entry is None or release is None or not _installed_command(entry[0], discovery):
            return False
        return release[2] not in discovery.paths() and not inside_git(release[2], discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        entry, release, name = _entry(artifact), _release(artifact, ctx.discovery), project_name(artifact)
        assert entry is not None and release is not None and name is not None  # applies() checked them
        script, module, function = entry
        wheel, version, pyz = release
        ctx.taken_paths.add(pyz)
        options, alone = options_of(_module_source(artifact, module, ctx.discovery))
        params = {"PYZ": pyz, "WHEEL": wheel, "NAME": name, "VERSION": version, "MODULE": module}
        params.update(FUNCTION=function, SCRIPT=script)
        solution = python_script(render(zipapp_release, ["main"], **params), "main()")
        tests = render(
            zipapp_release,
            [
                "test_zipapp_is_an_executable_python_archive",
                "test_zipapp_holds_the_wheels_package_and_build_info",
                "test_zipapp_main_exits_with_the_functions_value",
                "test_zipapp_runs_like_the_installed_command",
            ],
            tag=ctx.tag,
            OPTIONS=options,
            ALONE=alone,
            VOCAB=_vocabulary(ctx.discovery),
            SEED=ctx.rng.randrange(10**6),
            **params,
        )
        named = ", ".join(f"`{option}`" for option, _, _ in options)
        arguments = f"text files, the options {named}, files that do not exist" if options else "text files"
        instruction = " ".join(
            f"""Some hosts get `{script}` without pip: release it also as one executable file. Build `{pyz}`, a
            Python zip application, from the wheel `{wheel}` (version {version} of `{name}`, built from
            `{artifact.path}` and installed on this host; leave the wheel and the installed package as they
            are). The file starts with the line `#!/usr/bin/env python3` and has mode `0755`. The archive holds,
            folder entries aside, exactly these files: each file the wheel holds outside its `.dist-info` folder,
            at the same path and with the same bytes (taken from the wheel, not from the project folder); a
            `__main__.py` at its root that imports `{function}` from `{module}` (what the console script
            `{script}` runs), calls it with no arguments, leaving `sys.argv` as it is, and exits with its
            return value as `sys.exit` does; and a `BUILD-INFO.json` at its root, a JSON object with exactly the
            keys `name` (`"{name}"`), `version` (`"{version}"`) and `modules`, an object that maps the archive
            path of each file taken from the wheel to the lowercase hexadecimal SHA-256 of its bytes. Nothing
            else goes in: no `__pycache__` folders or `.pyc` files, no `.dist-info` metadata, no tests or other
            files of the project. Run from any folder as `{pyz} ARGS...` with nothing in its environment but a
            `PATH` that leads to `python3`, and as `python3 -S {pyz} ARGS...` (without site-packages, where the
            installed package cannot be imported), it must write the same standard output and exit with the
            same status as the installed command `{script} ARGS...`, whatever the arguments ({arguments}).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=pyz, kind=Kind.ARCHIVE, executable=True, details={"format": "zip"})],
        )
