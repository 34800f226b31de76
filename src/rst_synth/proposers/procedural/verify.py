"""The checks a step's solution runs on what it just produced, before the next step builds on it.

A careful engineer's script does not hand a file to the next stage unread: it parses the JSON it
wrote, asks SQLite for an integrity check, looks at a CSV's header, makes sure a tool is executable
and that a repository answers git. Each check is read-only (nothing is written, so the validator's
redundant-output and weak-test checks see the same outputs) and cannot fail on a correct output.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import q

_PARSE_PYTHON = "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read())"
_SQLITE_PYTHON = (
    "import sqlite3, sys; db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True); "
    "print(db.execute('PRAGMA integrity_check').fetchone()[0]); "
    "print(*[r[0] for r in db.execute(\"SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name\")])"
)


def _csv(p: str, tools: Collection[str]) -> list[str]:
    return [f"test -f {p}", f"head -n 3 {p}", f"wc -l {p}"]


def _json(p: str, tools: Collection[str]) -> list[str]:
    if "python3" in tools:
        return [f"test -f {p}", f"python3 -m json.tool {p} > /dev/null", f"wc -c {p}"]
    if "jq" in tools:
        return [f"test -f {p}", f"jq empty {p}", f"wc -c {p}"]
    return [f"test -f {p}", f"wc -c {p}"]


def _sqlite(p: str, tools: Collection[str]) -> list[str]:
    if "sqlite3" in tools:
        return [f"test -f {p}", f"sqlite3 -readonly {p} 'PRAGMA integrity_check;'", f"sqlite3 -readonly {p} .tables"]
    if "python3" in tools:
        return [f"test -f {p}", f"python3 -c {q(_SQLITE_PYTHON)} {p}"]
    return [f"test -f {p}"]


def _git(p: str, tools: Collection[str]) -> list[str]:
    return [f"git -C {p} rev-parse --git-dir", f"git -C {p} status --short", f"git -C {p} log --oneline -n 3"]


def _executable(p: str, tools: Collection[str]) -> list[str]:
    return [f"test -x {p}", f"ls -l {p}"]


def _python(p: str, tools: Collection[str]) -> list[str]:
    parse = [f"python3 -c {q(_PARSE_PYTHON)} {p}"] if "python3" in tools else []
    return [f"test -f {p}", *parse, f"wc -l {p}"]


def _shell(p: str, tools: Collection[str]) -> list[str]:
    return [f"test -f {p}", f"bash -n {p}", f"wc -l {p}"]


def _text(p: str, tools: Collection[str]) -> list[str]:
    return [f"test -f {p}", f"wc -l {p}"]


_BY_KIND: dict[Kind, Callable[[str, Collection[str]], list[str]]] = {
    Kind.CSV: _csv,
    Kind.JSON: _json,
    Kind.SQLITE: _sqlite,
    Kind.GIT: _git,
    Kind.EXECUTABLE: _executable,
    Kind.PYTHON_SOURCE: _python,
    Kind.SHELL_SCRIPT: _shell,
    Kind.TEXT: _text,
    Kind.CONFIG: _text,
    Kind.BUILD: _text,
    Kind.C_SOURCE: _text,
}


def output_checks(produced: list[Artifact], tools: Collection[str]) -> str:
    """Bash that checks each produced artifact by its kind, with the tools the image has (`tools`);
    empty when the step produced nothing."""
    lines: list[str] = []
    for artifact in produced:
        check = _BY_KIND.get(artifact.kind)
        path = q(artifact.path)
        lines.extend(check(path, tools) if check else [f"test -e {path}", f"ls -ld {path}"])
    if not lines:
        return ""
    return "# check what this step produced before anything builds on it\n" + "\n".join(lines) + "\n"
