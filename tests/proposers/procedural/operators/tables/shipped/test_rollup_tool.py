"""The reference of csv-rollup-tool, called directly: its `main` as a tool passes the tests (quoted fields,
CRLF, another column order, an empty input, a missing column); a tool that refuses an empty input, keeps
a CR in its output or exits 1 on a missing column fails them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rst_synth
from rst_synth.proposers.procedural.operators.tables.shipped import rollup_tool as shipped


def tool(tmp_path: Path, body: str) -> str:
    path = tmp_path / "rollup"
    src = Path(rst_synth.__file__).parents[1]
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(src)!r})\n{body}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_text('id,region,amount\n1,"north, east",1.005\n2,south,\n3,"north, east",2\n4,south,-0.004\n')
    for name, value in {"SRC": str(src), "OUT": str(tmp_path / "rollup.csv"), "SEED": 3}.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "fresh").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(run, f"from {shipped.__name__} import main\nsys.exit(main())\n"))
    done = shipped.run_tool(shipped.TOOL, shipped.SRC)
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == ["region,rows,total", '"north, east",2,3.01', "south,2,0.00"]
    Path(shipped.OUT).write_bytes(done.stdout)
    shipped.test_rollup_of_the_artifact()
    shipped.test_tool_on_fresh_inputs(run / "fresh")
    shipped.test_tool_rejects_a_missing_column(run)


WRONG = {
    "empty input refused": "if not open(sys.argv[1]).read():\n    sys.exit(1)\n{main}sys.exit(main())\n",
    "CRLF output": "import csv\n_w = csv.writer\ncsv.writer = lambda f, **k: _w(f)\n{main}sys.exit(main())\n",
    "exit 1": "{main}sys.exit(1 if main() == 2 else 0)\n",
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(run: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    body = WRONG[wrong].format(main=f"from {shipped.__name__} import main\n")
    monkeypatch.setattr(shipped, "TOOL", tool(run, body))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_inputs(run / "fresh")
        shipped.test_tool_rejects_a_missing_column(run)
