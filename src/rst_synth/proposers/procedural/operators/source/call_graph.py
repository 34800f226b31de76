"""The call graph of a Python module, as a tool: which module-level functions each one calls by plain name, which
are entry points, and which no entry reaches, under stated rules (attribute calls and methods ignored, nested
calls counted). The tests run it on modules they make up: cycles, recursion, an unreachable pair, decoys."""

from __future__ import annotations

import ast
import re

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, output_dir, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, inside_git, tool_path, work_root

CALLGRAPH_PY = r'''
def call_graph(source):
    """source (bytes or str) -> {"functions": {name: [callees]}, "entry": [...], "unreachable": [...]}."""
    tree = ast.parse(source)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    names = {n.name for n in defs}

    def called(nodes):
        found = set()
        for node in nodes:
            for c in ast.walk(node):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in names:
                    found.add(c.func.id)
        return found

    functions = {name: set() for name in names}
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
'''

TOOL_MAIN = r"""
def main(argv):
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


sys.exit(main(sys.argv))
"""

# Modules the tests make up, names drawn at random. `lost`: a pair calling each other that only attribute calls and
# references name elsewhere, and one called only from a class; none of them may become reachable.
FRESH_PY = r'''
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


def fresh_module(seed):
    """-> (source, the names no entry may reach)."""
    rng = random.Random(seed)
    count, mode, names = rng.randint(8, 11), seed % 3, []
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
        live[0]: ["    x = obj.{}(x) or os.path.join(str(x))".format(pair[0])],
        live[-1]: ["    handlers = [{}, {}]".format(pair[1], by_method), "    x = sorted([x], key={})".format(pair[0])],
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
    lines += ["", "class Box:", "    limit = " + by_method + "(0)", "",
              "    def " + pair[0] + "(self):", "        return " + by_method + "(self)", ""]
    if mode == 1:
        lines += ["", "CACHE = lambda: " + live[4] + "()", "for v in [" + live[3] + "(1)]:", "    print(v)"]
    lines += ["", 'if __name__ == "__main__":']
    run_main = ["sys.exit(main())", "cli.main()"][seed // 3 % 2]  # main is an entry either way (both in 6 seeds)
    lines += ["    " + [run_main, live[0] + "(sys.argv)", "tools." + live[0] + "()"][mode]]
    return "\n".join(lines) + "\n", [*pair, by_method]
'''

_TOP_DEF = re.compile(r"^(async[ \t]+def|def)[ \t]+[A-Za-z_]", re.MULTILINE)


def _function_count(artifact: Artifact) -> int:
    """Module-level functions: from the parsed sample when it is the whole file, else by a line rule."""
    if len(artifact.sample) >= SAMPLE_CHARS:
        return len(_TOP_DEF.findall(artifact.sample))
    try:
        tree = ast.parse(artifact.sample)
    except (SyntaxError, ValueError):
        return 0
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in tree.body)


@register
class PythonCallGraph(Operator):
    """Which module-level functions of a Python module call which, its entries and unreachable ones, as a tool."""

    name = "python-call-graph"
    kinds = (Kind.PYTHON_SOURCE,)
    tools = ("python3",)
    weight = 3.0
    once = True  # the tool is the same program whatever the module: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            _function_count(artifact) >= 2
            and not inside_git(artifact.path, discovery)
            and not any(inside_git(f"{d}/x", discovery) for d in (f"{root}/bin", output_dir(artifact, discovery)))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        tool = tool_path(ctx, artifact, "callgraph")
        out = ctx.output_path(artifact, "callgraph", "json")
        seed = ctx.rng.randrange(10**6)
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import ast, json, sys
{CALLGRAPH_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} > {q(out)}"""
        tests = f"""
TOOL, SRC, OUT, SEED = {tool!r}, {artifact.path!r}, {out!r}, {seed}
{CALLGRAPH_PY}{FRESH_PY}{RUN_TOOL}

def test_{ctx.tag}_call_graph_of_the_module():
    want = call_graph(pathlib.Path(SRC).read_bytes())
    assert len(want["functions"]) >= 2
    assert json.loads(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_{ctx.tag}_tool_on_fresh_modules(tmp_path):
    for k in range(6):
        source, lost = fresh_module(SEED + k)
        want = call_graph(source)
        assert set(lost) <= set(want["unreachable"]) and len(want["entry"]) == [1, 3, 0][(SEED + k) % 3]
        path = tmp_path / f"module_{{k}}.py"
        path.write_text(source, encoding="utf-8")
        done = run_tool(TOOL, path)
        assert done.returncode == 0, done.stderr[-500:]
        assert json.loads(done.stdout) == want, source


def test_{ctx.tag}_tool_rejects_bad_arguments(tmp_path):
    good, broken = tmp_path / "good.py", tmp_path / "broken.py"
    good.write_text("def a():\\n    b()\\n\\n\\ndef b():\\n    pass\\n", encoding="utf-8")
    broken.write_text("def a(:\\n    pass\\n", encoding="utf-8")
    for args in ([], [good, good], [tmp_path / "missing.py"], [tmp_path], [broken]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"", args
        assert len(done.stderr.decode().strip().splitlines()) == 1, (args, done.stderr)
"""
        instruction = " ".join(
            f"""Next, write a command-line tool `{tool}` (an executable Python 3 script with a `#!` line) that
            reports the call graph of a Python module, then run it on `{artifact.path}` and save its standard
            output as `{out}` (create the folder). `{tool} FILE` parses FILE as Python source. The nodes of the
            graph are the module-level functions: the `def` and `async def` statements directly in the module
            body (not methods, not functions nested in other functions, not definitions inside an `if`, `try` or
            `class` block); a name defined more than once at module level is one node, with the calls of all its
            definitions. A call counts only when it is written as a plain name followed by parentheses
            (`name(...)`) and the name is a node's; a call through an attribute (`obj.name()`, `module.name()`)
            does not count, nor does a name that is only referenced or passed along (`key=name`), nor a call of
            any other name (`print()`, an imported function). A node calls each node called anywhere in the
            statements of its body at any depth, inside nested functions, lambdas, comprehensions and nested
            classes too, even where the name is rebound locally (scopes are not analysed); its decorators,
            argument defaults and annotations count for nothing (neither for it nor as module-level code).
            Module-level code is every statement directly in
            the module body that is not a `def`, `async def` or `class` statement, at any depth (the
            `if __name__ == "__main__":` block, assignments, loops, lambdas, and the bodies of functions defined
            inside such blocks); everything inside a module-level `class` statement is ignored (its methods are
            not nodes and their calls count for nothing). The tool prints one JSON object with exactly three keys:
            `functions`, an object mapping each node's name to the list of the nodes it calls (a node that calls
            itself lists itself); `entry`, the list of nodes called from module-level code, plus `main` when a
            node of that name exists; and `unreachable`, the list of nodes not reachable from any entry by
            following calls (entries are reachable; with no entry every node is unreachable). Every list is
            sorted in code-point order without duplicates. It exits 0, or, given anything but exactly one
            argument, a file it cannot read or a file that is not valid Python, prints one line to standard error,
            nothing to standard output, and exits 2.""".split()
        )
        produced = Artifact(
            path=out,
            kind=Kind.JSON,
            details={"type": "object", "keys": ["entry", "functions", "unreachable"]},
            end_result=True,  # a report about the module: no later step builds on it
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=tool, kind=Kind.EXECUTABLE)],
        )
