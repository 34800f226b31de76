"""What `python-call-graph` ships: the tool that prints the call graph of a module's top-level functions
(`main` and what it uses; the step writes them into an executable with a `sys.exit(main(sys.argv))` line), and
the tests that compute the graph again and run the tool on modules they make up (cycles, recursion, an
unreachable pair, decoys) and on bad arguments. The constants are the step's parameters: `shipping.render` sets
them."""

from __future__ import annotations

import ast
import json
import pathlib
import random
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_callgraph"
SRC = "/app/src/app.py"
OUT = "/app/src/app_callgraph.json"
SEED = 1


def call_graph(source: bytes | str) -> dict[str, Any]:
    """source (bytes or str) -> {"functions": {name: [callees]}, "entry": [...], "unreachable": [...]}."""
    tree = ast.parse(source)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    names = {n.name for n in defs}

    def called(nodes: list[ast.stmt]) -> set[str]:
        found: set[str] = set()
        for node in nodes:
            for c in ast.walk(node):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in names:
                    found.add(c.func.id)
        return found

    functions: dict[str, set[str]] = {name: set() for name in names}
    for node in defs:
        functions[node.name] |= called(node.body)
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    entry = called(top) | ({"main"} & names)
    reached, todo = set(), list(entry)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(functions[name])
    return {
        "functions": {name: sorted(callees) for name, callees in sorted(functions.items())},
        "entry": sorted(entry),
        "unreachable": sorted(names - reached),
    }


def main(argv: list[str]) -> int:
    try:
        if len(argv) != 2:
            raise ValueError("expected exactly one FILE")
        with open(argv[1], "rb") as f:
            graph = call_graph(f.read())
    except (ValueError, OSError, SyntaxError) as exc:
        print("usage: " + argv[0] + " FILE (" + " ".join(str(exc).split()) + ")", file=sys.stderr)
        return 2
    print(json.dumps(graph, indent=2, sort_keys=True))
    return 0


# Modules the tests make up, names drawn at random. `lost`: a pair calling each other that only attribute calls and
# references name elsewhere, and one called only from a class; none of them may become reachable.
VERBS = ["load", "parse", "emit", "scan", "merge", "split", "count", "render", "check", "fold", "walk", "pack"]
NOUNS = ["rows", "token", "line", "tree", "word", "block", "node", "item", "path", "queue", "cell", "batch"]
FORMS = [
    "    x = {c}(x) + len(str(x))",
    "    f = lambda v: {c}(v)",
    "    x = [{c}(v) for v in range(2)]",
    "    def inner_{i}(v):\n        return {c}(v)",
    "    if {c}(x):\n        print(x)",
    "    {c} = print\n    {c}(x)",
    "    x = sum({c}(v) for v in {{1: 2}})",
    "    class Local{i}:\n        y = {c}(1)",
]


def fresh_module(seed: int) -> tuple[str, list[str]]:
    """-> (source, the names no entry may reach)."""
    rng = random.Random(seed)
    count, mode, names = rng.randint(8, 11), seed % 3, []  # type: ignore[var-annotated]
    while len(names) < count:
        name = rng.choice(VERBS) + "_" + rng.choice(NOUNS)
        names += [name] if name not in names else []
    if mode == 0:
        names[0] = "main"
    live, pair, by_method = names[:-3], names[-3:-1], names[-1]
    calls = {name: set(rng.sample(live, rng.randint(0, 2))) for name in live}
    calls[live[0]].add(live[1])
    calls[live[1]].add(live[0])  # a cycle
    calls[live[2]].add(live[2])  # recursion
    calls[live[-2]].add(live[1])  # what a second definition of it (below) must not replace
    calls[pair[0]], calls[pair[1]], calls[by_method] = {pair[1]}, {pair[0], by_method}, {live[-1]}
    decoys = {
        live[0]: ["    x = obj.{}(x) or os.path.join(str(x))".format(pair[0])],  # noqa: UP032
        live[-1]: [
            "    handlers = [{}, {}]".format(pair[1], by_method),  # noqa: UP032
            "    x = sorted([x], key={})".format(pair[0]),  # noqa: UP032
        ],
    }
    lines, i = ["import os", "import sys", ""], 0
    for name in names:
        is_async = name == live[3]
        lines += ["", ("async def " if is_async else "def ") + name + "(x=0):", '    """' + name + '."""']
        for c in sorted(calls[name]):
            form = "    x = await {c}(x)" if is_async and rng.random() < 0.5 else rng.choice(FORMS)
            lines.append(form.format(c=c, i=i))
            i += 1
        lines += decoys.get(name, []) + ["    return x", ""]
    if rng.random() < 0.8:  # defined twice: one node, the calls of both
        lines += ["", "def " + live[-2] + "(x=0):", "    return " + live[4] + "(x)", ""]
    lines += [
        "",
        "class Box:",
        "    limit = " + by_method + "(0)",
        "",
        "    def " + pair[0] + "(self):",
        "        return " + by_method + "(self)",
        "",
    ]
    if mode == 1:
        lines += ["", "CACHE = lambda: " + live[4] + "()", "for v in [" + live[3] + "(1)]:", "    print(v)"]
    lines += ["", 'if __name__ == "__main__":']
    run_main = ["sys.exit(main())", "cli.main()"][seed // 3 % 2]  # main is an entry either way (both in 6 seeds)
    lines += ["    " + [run_main, live[0] + "(sys.argv)", "tools." + live[0] + "()"][mode]]
    return "\n".join(lines) + "\n", [*pair, by_method]


def test_call_graph_of_the_module() -> None:
    want = call_graph(pathlib.Path(SRC).read_bytes())
    assert len(want["functions"]) >= 2
    assert json.loads(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_modules(tmp_path: pathlib.Path) -> None:
    for k in range(6):
        source, lost = fresh_module(SEED + k)
        want = call_graph(source)
        assert set(lost) <= set(want["unreachable"]) and len(want["entry"]) == [1, 3, 0][(SEED + k) % 3]
        path = tmp_path / f"module_{k}.py"
        path.write_text(source, encoding="utf-8")
        done = run_tool(TOOL, path)
        assert done.returncode == 0, done.stderr[-500:]
        assert json.loads(done.stdout) == want, source


def test_tool_rejects_bad_arguments(tmp_path: pathlib.Path) -> None:
    good, broken = tmp_path / "good.py", tmp_path / "broken.py"
    good.write_text("def a():\n    b()\n\n\ndef b():\n    pass\n", encoding="utf-8")
    broken.write_text("def a(:\n    pass\n", encoding="utf-8")
    for args in ([], [good, good], [tmp_path / "missing.py"], [tmp_path], [broken]):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
        assert len(done.stderr.decode().strip().splitlines()) == 1, (args, done.stderr)
