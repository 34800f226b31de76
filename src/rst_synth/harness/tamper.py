"""Whether what ran before the verifier touched the verifier's toolchain: a pure policy over the
engine's list of changed paths (`docker diff`, asked of the engine, never of the container), and the
clean environment test.sh runs with. docs/verifier.md says what it covers.

The agent is root in the container the tests run in (Harbor's shared mode), so anything the tests
run with could be its own: the interpreter, pytest, the files Python and pytest read at start-up, the
programs PATH finds first. An honest solution changes none of them; installing a package into the
system interpreter adds a package folder and its .dist-info under site-packages/dist-packages, which
is allowed. `pip install -e` adds a .pth file, which is not: a .pth runs code in every Python process
and can put a folder ahead of pytest's, so a task whose solution needs its package importable must
install it normally."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.sandbox import ChangeKind, FileChange

PATH_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/root/.local/bin")
"""Folders a PATH may list; a verifier program added or changed in any of them is someone else's."""
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""Debian's PATH, where the engine tells no PATH for the image."""
_PROGRAMS = re.compile(r"^(python[0-9.]*|pytest[-0-9.]*|py\.test[-0-9.]*|bash|sh|dash|env)$")
"""Programs test.sh and the harness start: an added one earlier on PATH shadows the image's."""
_STDLIB = re.compile(r"^/usr(/local)?/lib/python3[^/]*(/.*)?$")
_SITE = re.compile(r"/(site|dist)-packages/([^/]+)")
_TOOLCHAIN = re.compile(r"^(pytest|_pytest|pluggy|iniconfig|py|packaging)(\.py|-[0-9][^/]*\.(dist|egg)-info)?$")
"""Top-level names of pytest and what it imports, and their .dist-info/.egg-info, in any site folder."""
_STARTUP = re.compile(r"(^|/)(sitecustomize\.py|usercustomize\.py|[^/]*\.pth)$")
"""Files every Python process reads at start-up, wherever they are."""
_PYTEST_CONFIG = ("conftest.py", "pytest.ini")
_SHARED_CONFIG = {"pyproject.toml": "[tool.pytest", "setup.cfg": "[tool:pytest]", "tox.ini": "[pytest]"}
"""Files pytest reads its configuration from only when they hold its section (the marker)."""
_PLUGIN_SECTION = "[pytest11]"
"""An entry_points.txt with this section loads a plugin into every pytest run."""
_STRIPPED_ENV = re.compile(r"^(PYTHON.*|LD_.*|BASH_ENV|ENV)$")
_CD = re.compile(r"(?:^|[;&|\s])cd\s+([\"']?)(/[^\s;&|\"']*)\1")


@dataclass(frozen=True)
class Finding:
    """One path through which the verifier was tampered with, and why it matters (one line)."""

    path: str
    why: str

    @property
    def detail(self) -> str:
        return f"{self.path}: {self.why}"


def _directories(changes: list[FileChange]) -> set[str]:
    """Paths the list shows something under: directories, which a file added below marks CHANGED."""
    return {str(parent) for c in changes for parent in PurePosixPath(c.path).parents}


def new_venvs(changes: list[FileChange], path: str) -> set[str]:
    """Virtual environments the work created (their pyvenv.cfg is new) whose bin/ the verifier's PATH
    does not list: their interpreter, pytest and .pth files are never the verifier's."""
    listed = set(path.split(":"))
    added = {c.path for c in changes if c.kind is ChangeKind.ADDED}
    roots = {str(PurePosixPath(p).parent) for p in added if p.endswith("/pyvenv.cfg")}
    # A whole new folder, outside /usr, /etc and every Python folder: a pyvenv.cfg planted in
    # /usr/lib/python3.11/pytest/ must not exempt a pytest that shadows the verifier's.
    return {
        root
        for root in roots
        if root in added
        and f"{root}/bin" not in listed
        and not root.startswith(("/usr/", "/etc/"))
        and not re.search(r"/lib/python|/(site|dist)-packages(/|$)", root)
    }


def toolchain_finding(changes: list[FileChange], folders: set[str], path: str = DEFAULT_PATH) -> Finding | None:
    """The first change that touches the verifier's toolchain, or None. `folders`: where pytest
    looks for its configuration and conftest.py (verifier_folders); `path`: the PATH test.sh runs on."""
    dirs = _directories(changes)
    venvs = tuple(f"{root}/" for root in new_venvs(changes, path))
    for change in sorted(changes, key=lambda c: c.path):
        if change.kind is ChangeKind.CHANGED and change.path in dirs:
            continue  # a directory something under it changed in: its children speak for it
        if change.path.startswith(venvs):
            continue  # `python3 -m venv` writes a .pth (setuptools'), and may install pytest there
        why = _why(change, folders)
        if why:
            return Finding(change.path, why)
    return None


def _why(change: FileChange, folders: set[str]) -> str:
    path, kind = change.path, change.kind
    written = kind is not ChangeKind.DELETED
    what = {ChangeKind.ADDED: "added", ChangeKind.CHANGED: "changed", ChangeKind.DELETED: "deleted"}[kind]
    parent, name = str(PurePosixPath(path).parent), PurePosixPath(path).name
    if written and _STARTUP.search(path):
        return f"{what}: Python runs it at start-up"
    if path == "/etc/ld.so.preload" and written:
        return f"{what}: the loader preloads it into every program"
    if parent in PATH_DIRS and _PROGRAMS.match(name):
        return f"{what}: a program the verifier starts"
    stdlib = _STDLIB.match(path)
    if stdlib and not re.match(r"^/(site|dist)-packages(/|$)", stdlib.group(2) or ""):
        return f"{what}: the interpreter's standard library"
    site = _SITE.search(path)
    if site and _TOOLCHAIN.match(site.group(2)):
        return f"{what}: pytest or a package it imports"
    if written and parent in folders and name in _PYTEST_CONFIG:
        return f"{what}: pytest reads it"
    return ""


def content_suspects(changes: list[FileChange], folders: set[str]) -> dict[str, str]:
    """Added or changed files that tamper only when they hold a marker: path -> the marker (a
    pyproject.toml in /app is a project's, unless it configures pytest)."""
    found: dict[str, str] = {}
    for change in changes:
        if change.kind is ChangeKind.DELETED:
            continue
        path = PurePosixPath(change.path)
        if str(path.parent) in folders and path.name in _SHARED_CONFIG:
            found[change.path] = _SHARED_CONFIG[path.name]
        elif path.name == "entry_points.txt" and _SITE.search(change.path):
            found[change.path] = _PLUGIN_SECTION
    return found


def content_finding(path: str, marker: str, text: str) -> Finding | None:
    if marker not in text:
        return None
    if marker == _PLUGIN_SECTION:
        return Finding(path, "declares a pytest plugin, which every pytest run loads")
    return Finding(path, f"configures pytest ({marker}...)")


def verifier_folders(test_sh: str, workdir: str) -> set[str]:
    """Where pytest may read conftest.py or its configuration: /, /tests, /app, the image's WORKDIR,
    and every folder test.sh cds into, with their parents."""
    roots = {"/tests", "/app", workdir or "/", *(m.group(2) for m in _CD.finditer(test_sh))}
    folders = {"/"}
    for root in roots:
        path = PurePosixPath(root)
        folders |= {str(path), *(str(p) for p in path.parents)}
    return folders


def clean_env(image_env: dict[str, str]) -> dict[str, str]:
    """The environment test.sh runs with: the image's own Env (the engine's record), without
    variables that change how Python, the loader or bash start, on a fixed PATH, HOME and LANG."""
    env = {"PATH": DEFAULT_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
    env.update({k: v for k, v in image_env.items() if not _STRIPPED_ENV.match(k) and re.match(r"^\w+$", k)})
    return env


def env_command(env: dict[str, str], command: str) -> str:
    """`command` under `env -i` with exactly `env`: nothing exported by anyone before reaches it."""
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(env.items()))
    return f"env -i {assignments} {command}"
