"""The reference tool of python-call-graph, called directly and as the executable a step writes (rendered from
the shipped module): it passes its tests; a tool that counts attribute calls, forgets `main` as an entry or
prints usage on standard output fails them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.source.shipped import call_graph as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

MODULE = (
    "import os\n\n\ndef main():\n    load()\n\n\ndef load():\n    os.load()\n    return parse(1)\n\n\n"
    "def parse(x):\n    return parse(x - 1) if x else 0\n\n\ndef lost():\n    pass\n"
)


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text(MODULE)
    tool = tool_file(tmp_path / "callgraph", render(shipped, ["main"]))
    for name, value in {"TOOL": tool, "SRC": str(tmp_path / "app.py"), "OUT": str(tmp_path / "out.json")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def test_the_reference_passes_its_tests(module: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped.main(["callgraph", shipped.SRC]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {
        "functions": {"load": ["parse"], "lost": [], "main": ["load"], "parse": ["parse"]},
        "entry": ["main"],
        "unreachable": ["lost"],
    }
    (module / "out.json").write_text(out)
    shipped.test_call_graph_of_the_module()
    (module / "work").mkdir()
    shipped.test_tool_on_fresh_modules(module / "work")
    shipped.test_tool_rejects_bad_arguments(module)


@pytest.mark.parametrize(
    "change",
    [
        (
            "isinstance(c.func, ast.Name) and c.func.id in names",
            "getattr(c.func, 'id', getattr(c.func, 'attr', '')) in names",  # attribute calls counted
        ),
        ('| ({"main"} & names)', ""),
    ],
)
def test_a_wrong_tool_fails(module: Path, change: tuple[str, str]) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"]), wrong=change)
    (module / "work").mkdir()
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_modules(module / "work")


def test_usage_on_standard_output_fails(module: Path) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"]).replace("file=sys.stderr", "file=sys.stdout"))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_bad_arguments(module)


def test_a_wrong_graph_fails(module: Path) -> None:
    want = shipped.call_graph(MODULE)
    for wrong in ({**want, "unreachable": []}, {**want, "entry": ["load", "main"]}):
        (module / "out.json").write_text(json.dumps(wrong))
        with pytest.raises(AssertionError):
            shipped.test_call_graph_of_the_module()
