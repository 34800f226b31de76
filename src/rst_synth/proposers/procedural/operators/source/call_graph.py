"""The call graph of a Python module, as a tool: which module-level functions each one calls by plain name, which
are entry points, and which no entry reaches, under stated rules (attribute calls and methods ignored, nested
calls counted). The tests run it on modules they make up: cycles, recursion, an unreachable pair, decoys."""

from __future__ import annotations

import ast
import re

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, output_dir, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.source.shipped import call_graph
from rst_synth.proposers.procedural.shipping import render

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
class PythonCallGraph(ToolOperator):
    """Which module-level functions of a Python module call which, its entries and unreachable ones, as a tool."""

    name = "python-call-graph"
    kinds = (Kind.PYTHON_SOURCE,)
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
        code = render(call_graph, ["main"])
        run = f"{q(tool)} {q(artifact.path)} > {q(out)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        params = {"TOOL": tool, "SRC": artifact.path, "OUT": out, "SEED": seed}
        names = ["test_call_graph_of_the_module", "test_tool_on_fresh_modules", "test_tool_rejects_bad_arguments"]
        tests = render(call_graph, names, tag=ctx.tag, **params)
        instruction = " ".join(
            f"""Write a command-line tool `{tool}` (an executable Python 3 script with a `#!` line) that
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
