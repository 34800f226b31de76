"""python-call-graph: where it applies (a module with two functions or more, once per lineage), the graph rules on
a hand-checked module, its generated tests on its own tool (and on tools that count attribute calls or miss nested
ones), and a child accepted against a parent that packaged a small CLI."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural import ProceduralConfig, ProceduralProposer
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.source.shipped import call_graph as shipped
from rst_synth.proposers.procedural.scenarios import BY_NAME
from rst_synth.task import HistoryStep
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["python-call-graph"]
TEXTSTATS = '''"""Word statistics of a text file."""

import sys


def words(text):
    return text.split()


def summarise(text):
    found = words(text)
    return {"words": len(found), "distinct": len(set(found))}


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        print(summarise(f.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
'''


def artifact(text: str = TEXTSTATS, path: str = "/app/textstats/textstats.py") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*artifacts: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts or [artifact()]), tools=["python3"])


def build(seed: int = 4) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r3s1"))


def call_graph(source: str) -> dict[str, Any]:
    return shipped.call_graph(source)


def test_it_applies_to_a_module_with_two_functions() -> None:
    assert artifact().kind is Kind.PYTHON_SOURCE and OP.can_use(artifact(), discovery())
    one = artifact("import sys\n\n\ndef main():\n    print(len(sys.argv))\n", "/app/one.py")
    assert not OP.can_use(one, discovery(one))
    methods = artifact("class A:\n    def f(self):\n        pass\n\n    def g(self):\n        pass\n", "/app/a.py")
    assert not OP.can_use(methods, discovery(methods))  # methods are no nodes
    broken = artifact("def a(:\n    pass\n\n\ndef b():\n    pass\n", "/app/broken.py")
    assert not OP.can_use(broken, discovery(broken))
    repo = Artifact(path="/app/textstats", kind=Kind.GIT)
    assert not OP.can_use(artifact(), discovery(artifact(), repo))  # the tool and output would dirty it


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the module: a second step would be a copy
    other = artifact(TEXTSTATS, "/app/other/textstats2.py")
    found = discovery(artifact(), other)
    proposer = ProceduralProposer(discovery=None, config=ProceduralConfig(operators=[OP.name]))  # type: ignore[arg-type]
    steps = proposer._choose(found, random.Random(1), 3, set(), 1, [], BY_NAME["code-health"])
    assert [s.operator for s in steps] == [OP.name]  # two modules, one step
    earlier = [HistoryStep(name=OP.name, consumes=[other.path])]
    assert proposer._choose(found, random.Random(1), 3, set(), 2, earlier, BY_NAME["code-health"]) == []


def test_graph_rules() -> None:
    assert call_graph(TEXTSTATS) == {
        "functions": {"main": ["summarise"], "summarise": ["words"], "words": []},
        "entry": ["main"],
        "unreachable": [],
    }
    source = (
        "import helpers\n\n\ndef a():\n    x = lambda: b()\n"
        "    return [c(v) for v in x()] + [helpers.d(), self.a()]\n\n\n"
        "def b():\n    c = len\n    c(1)\n    b()\n\n\ndef c():\n    pass\n\n\n"
        "def d():\n    e()\n\n\nasync def e():\n    await d()\n    return f\n\n\n"
        "class K:\n    x = e()\n\n    def a(self):\n        d()\n\n\n"
        "if True:\n    def f():\n        a()\n"
    )
    assert call_graph(source) == {
        "functions": {"a": ["b", "c"], "b": ["b", "c"], "c": [], "d": ["e"], "e": ["d"]},
        "entry": ["a"],  # called in a function defined in an `if` block: module-level code
        "unreachable": ["d", "e"],
    }
    assert call_graph("def a():\n    b()\n\n\ndef b():\n    a()\n")["unreachable"] == ["a", "b"]  # no entry
    decorated = "@c()\ndef a(x=b()) -> c():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n"
    assert call_graph(decorated) == {  # decorators, defaults, annotations: neither the function's nor an entry
        "functions": {"a": [], "b": [], "c": []},
        "entry": [],
        "unreachable": ["a", "b", "c"],
    }


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/app/textstats/textstats.py",
        "/app/bin/textstats_callgraph",
        "/app/textstats/textstats_callgraph.json",
    }
    assert all(f"`{p}`" in step.instruction for p in paths)
    assert step.produces[0].end_result and step.produces[1].kind is Kind.EXECUTABLE


SHALLOW = """
    def shallow(node):
        nested = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ListComp, ast.SetComp, ast.GeneratorExp)
        todo = [node]
        while todo:
            n = todo.pop()
            yield n
            todo.extend(c for c in ast.iter_child_nodes(n) if not isinstance(c, nested))

"""
WRONG_TOOLS = {
    "attribute calls count": [
        ("isinstance(c.func, ast.Name) and c.func.id in names", "getattr(c.func, 'attr', None) in names"),
        ("found.add(c.func.id)", "found.add(c.func.attr)"),
    ],
    "nested calls missed": [
        ("    def called(nodes):", SHALLOW + "    def called(nodes):"),
        ("ast.walk(node)", "shallow(node)"),
    ],
    "methods are nodes": [("for n in tree.body if isinstance", "for n in ast.walk(tree) if isinstance")],
}


@pytest.mark.parametrize("wrong", sorted(WRONG_TOOLS))
def test_generated_tests_pass_on_the_tool_and_fail_on_a_wrong_one(tmp_path: Path, wrong: str) -> None:
    local = LocalStep(build(), tmp_path)
    local.put("/app/textstats/textstats.py", TEXTSTATS)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/textstats_callgraph")
    source = tool.read_text()
    broken = source
    for old, new in WRONG_TOOLS[wrong]:
        assert old in broken
        broken = broken.replace(old, new)
    tool.write_text(broken)
    assert len(local.run_tests(tmp_path / "real", only="of_the_module")) == 1  # textstats looks the same to it
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    solve = f"mkdir -p /app/textstats\ncat > /app/textstats/textstats.py <<'PY'\n{TEXTSTATS}PY\n"
    parent = parent_task(tmp_path, solve)
    (parent / "instruction.md").write_text("Write the word-statistics CLI `/app/textstats/textstats.py`.\n")
    proposal, report = extend_with("python-call-graph", parent)
    assert_accepted(proposal, report, "python-call-graph")
