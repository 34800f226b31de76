"""What `c-link-map` ships: the tool that reads the symbol tables of a program's object files and maps which
object defines each external symbol and which others use it, the globals nobody else uses (candidates for
`static`) and what none of them defines (its `main`, written to an executable file); the multi-file projects
the tests generate, with the map they must give known from how they were written; and the tests. The
constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/tally_link_map"
SOURCES = ["/app/src/main.c", "/app/src/tally.c"]
INCLUDE_DIRS: list[str] = []
STD = "-std=c11"
COMPILER = "gcc"
OBJECTS = "/app/linkmap/tally"
OUT = "/app/linkmap/tally_map.json"
SEED = 1

FLAGS = ["-c", "-O0", "-fno-common", "-fno-builtin", "-fno-stack-protector"]


def symbols(path: str) -> tuple[dict[str, str], set[str]]:
    """The external symbols an object file defines (name -> `function` or `data`) and those it references."""
    done = subprocess.run(["nm", "-P", path], capture_output=True, text=True)
    if done.returncode != 0:
        raise ValueError(path + ": " + done.stderr.strip())
    defined: dict[str, str] = {}
    used: set[str] = set()
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w"):
            used.add(name)
        elif kind in "TDBRCGSVW" and len(kind) == 1:
            defined[name] = "function" if kind in "TW" else "data"
    return defined, used


def link_map(paths: list[str]) -> dict[str, Any]:
    tables = {}
    for path in paths:
        name = os.path.basename(path)
        if name in tables:
            raise ValueError("two objects named " + name)
        tables[name] = symbols(path)
    owners: dict[str, str] = {}
    found: dict[str, dict[str, Any]] = {}
    for obj, (defined, _) in tables.items():
        for name, kind in defined.items():
            if name in owners:
                raise ValueError(name + " defined in " + owners[name] + " and " + obj)
            owners[name] = obj
            found[name] = {"kind": kind, "defined_in": obj, "used_by": []}
    unresolved = set()
    for obj, (_, used) in tables.items():
        for name in used:
            if name in found:
                if found[name]["defined_in"] != obj:
                    found[name]["used_by"].append(obj)
            else:
                unresolved.add(name)
    for entry in found.values():
        entry["used_by"].sort()
    return {
        "symbols": found,
        "static_candidates": sorted(n for n, e in found.items() if not e["used_by"] and n != "main"),
        "unresolved": sorted(unresolved),
    }


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not all(os.path.isfile(p) for p in argv[1:]):
        print("usage: " + argv[0] + " OBJECT.o...", file=sys.stderr)
        return 2
    try:
        found = link_map(argv[1:])
    except (OSError, ValueError) as exc:
        print("cannot map: " + str(exc), file=sys.stderr)
        return 2
    print(json.dumps(found, indent=2))
    return 0


def compile_all(sources: list[str], folder: pathlib.Path, includes: list[str], std: str) -> list[str]:
    """Each source compiled with the stated flags into `folder`, as `<stem>.o`, in the sources' order."""
    folder.mkdir(parents=True, exist_ok=True)
    objects = []
    for source in sources:
        obj = folder / (pathlib.Path(source).stem + ".o")
        flags = [f for f in [std, *FLAGS] if f] + [f"-I{d}" for d in [os.path.dirname(source), *includes]]
        subprocess.run([COMPILER, *flags, source, "-o", str(obj)], check=True, capture_output=True)
        objects.append(str(obj))
    return objects


def random_project(rng: random.Random, folder: pathlib.Path) -> tuple[list[str], dict[str, Any]]:
    """Three or four C files that call and read each other's globals, and the link map they must give."""
    files = [f"u{k}" for k in range(rng.randint(3, 4))]
    functions = {f: [f"{f}_fn{j}" for j in range(rng.randint(2, 3))] for f in files}
    variables = {
        f: [(f"{f}_var{j}", rng.choice(["= 3", "", "const"])) for j in range(rng.randint(1, 2))] for f in files
    }
    header = ["#include <stdio.h>", "#include <stdlib.h>"]
    header += [f"int {fn}(int x);" for f in files for fn in functions[f]]
    header += [f"extern {'const ' if how == 'const' else ''}int {v};" for f in files for v, how in variables[f]]
    (folder / "shared.h").write_text("\n".join(header) + "\n", encoding="utf-8")
    globals_ = [fn for f in files for fn in functions[f]] + [v for f in files for v, _ in variables[f]]
    found: dict[str, dict[str, Any]] = {}
    for f in files:
        owner = {"defined_in": f + ".o"}
        found.update({fn: {"kind": "function", **owner, "used_by": set()} for fn in [*functions[f], f"use_{f}_local"]})
        found.update({v: {"kind": "data", **owner, "used_by": set()} for v, _ in variables[f]})
    found["main"] = {"kind": "function", "defined_in": "u0.o", "used_by": set()}
    calls_libc = {"printf": '    printf("%d\\n", y);', "abs": "    y = abs(y);", "atoi": '    y += atoi("4");'}
    calls_libc["puts"] = '    puts("x");'
    unresolved: set[str] = set()
    sources = []
    for f in files:
        lines = ['#include "shared.h"', f"static int {f}_hidden = 7;"]
        lines += [
            f"const int {v} = 5;" if how == "const" else f"int {v} {how};".replace(" ;", ";") for v, how in variables[f]
        ]
        for fn in [*functions[f], f"{f}_local"]:
            refs = rng.sample(globals_, rng.randint(0, 3))
            libc = rng.sample(sorted(calls_libc), rng.randint(0, 2))
            body = [f"    int y = x + {f}_hidden;"]
            body += [f"    y += {r}(y);" if "_fn" in r else f"    y += {r};" for r in refs]
            body += [calls_libc[n] for n in libc]
            static = "static " if fn.endswith("_local") else ""
            lines += [f"{static}int {fn}(int x)", "{", *body, "    return y;", "}"]
            for r in refs:
                if not r.startswith(f + "_"):
                    found[r]["used_by"].add(f + ".o")
            unresolved.update(libc)
        lines += [f"int use_{f}_local(void) {{ return {f}_local(1); }}"]
        if f == "u0":
            lines += ["int main(void)", "{", f"    return {functions[f][0]}(1) > 0;", "}"]
        (folder / f"{f}.c").write_text("\n".join(lines) + "\n", encoding="utf-8")
        sources.append(str(folder / f"{f}.c"))
    for entry in found.values():
        entry["used_by"] = sorted(entry["used_by"])
    return sources, {
        "symbols": found,
        "static_candidates": sorted(n for n, e in found.items() if not e["used_by"] and n != "main"),
        "unresolved": sorted(unresolved),
    }


def test_map_of_the_program_objects(tmp_path: pathlib.Path) -> None:
    got = json.loads(pathlib.Path(OUT).read_text(encoding="utf-8"))
    assert got == link_map(compile_all(SOURCES, tmp_path / "objects", INCLUDE_DIRS, STD))


def test_tool_on_generated_projects(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(3):
        folder = tmp_path / str(k)
        folder.mkdir()
        sources, want = random_project(rng, folder)
        objects = compile_all(sources, folder / "obj", [], "-std=c11")
        rng.shuffle(objects)
        done = run_tool(TOOL, *objects)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(done.stdout) == want, k


def test_tool_refuses_what_it_cannot_map(tmp_path: pathlib.Path) -> None:
    one = tmp_path / "one.c"
    one.write_text("int shared(void) { return 1; }\n", encoding="utf-8")
    other = tmp_path / "other" / "one.c"
    other.parent.mkdir()
    other.write_text("int shared(void) { return 2; }\n", encoding="utf-8")
    two = tmp_path / "two.c"
    two.write_text("int shared(void) { return 2; }\n", encoding="utf-8")
    a = compile_all([str(one)], tmp_path / "a", [], "")
    b = compile_all([str(two)], tmp_path / "b", [], "")
    c = compile_all([str(other)], tmp_path / "c", [], "")
    text = tmp_path / "text.o"
    text.write_text("not an object\n", encoding="utf-8")
    for args in ([], [tmp_path / "missing.o"], [text], [*a, *b], [*a, *c]):
        assert_usage_error(run_tool(TOOL, *args), args)
