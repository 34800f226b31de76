"""An imported verifier made to run with no network: what tests/test.sh fetches at test time (uv,
pytest and its plugins, pip and apt packages) is listed for baking into the image at build time, and
test.sh is rewritten to use what is baked. Its reward logic is left as it is."""

from __future__ import annotations

import platform
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from rst_synth.importers.tb1 import fetches_from_internet, python_requirements
from rst_synth.task.shell import commands, logical_lines

MARK = "rst import harbor --offline"

# uv's options that take a value (the rest are flags): the first word after them is the command.
_UV_VALUED = frozenset(
    "-p --python -w --with --from --with-editable --with-requirements --index --index-url --extra-index-url "
    "--default-index -f --find-links --directory --project --group --extra --env-file --python-preference "
    "-C --config-setting -c --constraint --overrides --cache-dir --config-file --package".split()
)
_PREFIX = re.compile(r"^((?:(?:then|do|else|elif|if|while|until|!|\{|\()\s+)*)(.*)$", re.DOTALL)
_ASSIGNMENTS = re.compile(r"^(?:sudo\s+(?:-\S+\s+)*|env\s+|[A-Za-z_]\w*=\S*\s+)*")
_UV_INSTALLER = re.compile(r"^(curl|wget)\b.*(astral\.sh|/uv/|uv-installer).*\|\s*(sudo\s+)?(ba|z)?sh\b")
_ENV_SOURCE = re.compile(r"^(source|\.)\s+\S*(\.local/bin/env|\.cargo/env|bin/activate)\b")
_PIP_INSTALL = re.compile(r"^(?:\S*python3?(?:\.\d+)?\s+-m\s+pip|\S*pip3?(?:\.\d+)?|uv\s+pip)\s+install\b")
_UV_SETUP = re.compile(
    r"^(uv\s+(venv|init|add|python\s+install|self\s+update|--version|version)|pipx\s+install\s+uv)\b"
)
_UV_PROJECT = re.compile(r"^uv\s+(sync|lock|tool\s+install)\b")
_APT = re.compile(r"^(apt-get|apt)\s")
_LOCAL_URL = re.compile(r"^(https?://)?(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])([:/]|$)")
_NOT_BAKED = frozenset({"uv", "pip", "setuptools", "wheel"})
"""Packages an install line may name that the rewritten verifier does not need."""


class NotOffline(ValueError):
    """test.sh fetches something at test time that cannot be baked into the image; one line."""


class OfflineVerifier(BaseModel):
    """test.sh rewritten to use what the image has, and what the image must have for it."""

    script: str
    requirements: list[str] = Field(default_factory=list)
    """Python requirements to install at build time, pins kept, in order of appearance."""
    apt_packages: list[str] = Field(default_factory=list)
    """Debian packages test.sh installed that the rewritten script or the tests still use."""
    changes: list[str] = Field(default_factory=list)
    """One line per change, for [metadata.import]."""


def make_offline(script: str, tests: dict[str, str], where: str = "tests/test.sh") -> OfflineVerifier | None:
    """`script` rewritten to run offline; None when it fetches nothing. `tests` are the other files of
    tests/ by name (a requirements file, the test modules). NotOffline when a fetch cannot be baked."""
    lines = logical_lines(script)
    if not any(line.code and fetches_from_internet(line.joined) for line in lines):
        return None
    result = OfflineVerifier(script="")
    apt: list[str] = []
    out, offset = [], 0
    for line in lines:
        if not line.code:
            continue
        rewritten = _rewrite_line(line.joined, line.number, where, tests, result, apt)
        if rewritten != line.joined:
            indent = line.text[: len(line.text) - len(line.text.lstrip())]
            out.append(script[offset : line.start])
            out.append(f"{indent}# {MARK}: was `{_one_line(line.joined)}`\n{indent}{rewritten}")
            offset = line.end
    out.append(script[offset:])
    result.script = "".join(out)
    _keep_used_apt_packages(result, apt, tests, where)
    return result


def _rewrite_line(
    joined: str, number: int, where: str, tests: dict[str, str], result: OfflineVerifier, apt: list[str]
) -> str:
    parts, changed = [], False
    for command, separator in commands(joined):
        match = _PREFIX.match(command)
        keyword, body = (match.group(1), match.group(2)) if match else ("", command)
        bare = _ASSIGNMENTS.sub("", body, count=1)
        if _dropped(bare, number, where, tests, result, apt):
            body, changed = "true", True
        else:
            plain = _without_uv(body, number, where, result)
            changed |= plain != body
            body = plain
            if fetches_from_internet(body) and not _fetches_nothing(body):
                raise NotOffline(
                    f"{where} line {number}: `{_one_line(body)}` fetches at test time; --offline bakes only "
                    "uv, pytest, pip and apt installs"
                )
        parts.append(f"{keyword}{body}" + ({"": "", ";": ";"}.get(separator, f" {separator}")))
    return " ".join(parts) if changed else joined


def _dropped(
    bare: str, number: int, where: str, tests: dict[str, str], result: OfflineVerifier, apt: list[str]
) -> bool:
    """Whether the command only fetches what the image now has (its packages are noted for baking)."""
    at = f"{where} line {number}"
    if _UV_INSTALLER.match(bare) or _ENV_SOURCE.match(bare) or _UV_SETUP.match(bare):
        found = python_requirements(bare) if bare.startswith("uv add") else []
        _add(result.requirements, found)
        result.changes.append(f"{at}: `{_one_line(bare)}` dropped (uv is not needed: pytest runs from the image)")
        return True
    if _UV_PROJECT.match(bare):
        raise NotOffline(f"{at}: `{_one_line(bare)}` needs the uv project's index at test time; bake it by hand")
    if _PIP_INSTALL.match(bare):
        found = [
            r for r in python_requirements(bare) + _requirement_files(bare, at, tests) if _name(r) not in _NOT_BAKED
        ]
        _add(result.requirements, found)
        what = ", ".join(found) or "nothing the verifier needs"
        result.changes.append(f"{at}: `{_one_line(bare)}` dropped; {what} baked into the image")
        return True
    if _APT.match(bare):
        words = [w for w in bare.split()[1:] if not w.startswith("-")]
        if words and words[0] in ("install", "update", "upgrade"):
            packages = [w for w in words[1:] if re.fullmatch(r"[a-z0-9][a-z0-9+.-]*(=\S+)?", w)]
            _add(apt, packages)
            result.changes.append(f"{at}: `{_one_line(bare)}` dropped (apt runs at build time instead)")
            return True
    return False


def _without_uv(command: str, number: int, where: str, result: OfflineVerifier) -> str:
    """`uvx ... pytest ARGS` / `uv run ... pytest ARGS` as `python3 -m pytest ARGS`, `uv run python`
    as `python3`; the packages uv would have fetched are noted for baking."""
    words = list(re.finditer(r"\S+", command))
    texts = [w.group() for w in words]
    for k, word in enumerate(texts):
        if word == "uvx":
            first = k + 1
        elif word == "uv" and texts[k + 1 : k + 2] == ["run"]:
            first = k + 2
        elif word == "uv" and texts[k + 1 : k + 3] == ["tool", "run"]:
            first = k + 3
        else:
            continue
        requirements, python, j = [], None, first
        while j < len(texts) and texts[j].startswith("-"):
            option, _, inline = texts[j].partition("=")
            value = inline or (texts[j + 1] if option in _UV_VALUED and not inline and j + 1 < len(texts) else "")
            if option in ("-w", "--with", "--from"):
                requirements += [v.strip("'\"") for v in value.split(",") if v.strip("'\"")]
            elif option in ("-p", "--python"):
                python = value.strip("'\"")
            j += 1 if inline or option not in _UV_VALUED else 2
        tool = texts[j] if j < len(texts) else ""
        at = f"{where} line {number}"
        if tool in ("pytest", "py.test"):
            replacement = "python3 -m pytest"
            requirements = (
                ["pytest", *requirements] if not any(_name(r) == "pytest" for r in requirements) else requirements
            )
        elif tool in ("python", "python3") and first != k + 1:
            replacement = "python3"
        else:
            raise NotOffline(
                f"{at}: `{_one_line(command)}` runs {tool or 'nothing'} through uv; "
                "only pytest and python are rewritten"
            )
        _add(result.requirements, requirements)
        asked = f" (uv asked for Python {python}; the image's python3 runs the tests)" if python else ""
        result.changes.append(f"{at}: `{' '.join(texts[k : j + 1])}` runs as `{replacement}`{asked}")
        start, end = words[k].start(), words[j].end()
        return command[:start] + replacement + _without_uv(command[end:], number, where, result)
    return command


def _requirement_files(command: str, at: str, tests: dict[str, str]) -> list[str]:
    """Requirements of the files `pip install -r FILE` names, read from tests/ (where test.sh finds them)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    found: list[str] = []
    for option, value in zip(words, words[1:], strict=False):
        if option not in ("-r", "--requirement"):
            continue
        name = re.sub(r"^(/tests/|\$\{?TEST_DIR\}?/)", "", value)
        if name not in tests:
            raise NotOffline(f"{at}: requirements file {value} is not in tests/, so it cannot be baked")
        found += [line.split("#")[0].strip() for line in tests[name].splitlines() if line.split("#")[0].strip()]
    return found


def _keep_used_apt_packages(result: OfflineVerifier, apt: list[str], tests: dict[str, str], where: str) -> None:
    """apt packages stay baked only if the rewritten script or the tests still name them (curl was only
    there to fetch uv, usually)."""
    code = "\n".join(line.joined for line in logical_lines(result.script) if line.code)
    used_by = code + "\n" + "\n".join(tests.values())
    for package in apt:
        name = package.split("=", 1)[0]
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", used_by):
            result.apt_packages.append(package)
        else:
            result.changes.append(f"{where}: apt package {name} not baked: nothing left in the verifier uses it")


def _fetches_nothing(command: str) -> bool:
    """Commands that only name a fetcher (`command -v uv`, `echo ...`) or fetch from the task's own
    services (curl of localhost) are no fetch from the internet."""
    if re.match(r"^(command|which|type|hash|echo|printf)\b", command.strip()):
        return True
    if not re.match(r"^(curl|wget)\b", command.strip()):
        return False
    urls = [w for w in command.split()[1:] if not w.startswith("-") and ("." in w or ":" in w or "localhost" in w)]
    return bool(urls) and all(_LOCAL_URL.match(u.strip("'\"")) for u in urls)


def download_wheels(requirements: list[str], python: str) -> dict[str, bytes]:
    """Every wheel `requirements` need for CPython `python` on this machine's architecture, by file
    name, fetched from the package index now (the image build then needs no network). ValueError
    with pip's last line when pip cannot find them."""
    arch = _machine()
    platforms = [f"manylinux2014_{arch}", f"manylinux_2_17_{arch}", f"manylinux_2_28_{arch}", f"linux_{arch}"]
    with tempfile.TemporaryDirectory(prefix="rst-wheels-") as folder:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
        command += ["--only-binary=:all:", "--python-version", python, "--implementation", "cp", "-d", folder]
        for platform in platforms:
            command += ["--platform", platform]
        proc = subprocess.run([*command, *requirements], capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0:
            errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")] or proc.stderr.splitlines()
            raise ValueError(
                f"pip download {' '.join(requirements)} failed: {errors[-1] if errors else proc.returncode}"
            )
        return {path.name: path.read_bytes() for path in sorted(Path(folder).glob("*.whl"))}


def _machine() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _add(into: list[str], items: list[str]) -> None:
    into.extend(item for item in items if item not in into)


def _one_line(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
