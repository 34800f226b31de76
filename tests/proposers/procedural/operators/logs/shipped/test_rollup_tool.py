"""The reference of jsonl-rollup-tool, called directly: its `main` as a tool passes the tests (bad lines
skipped and counted, halves rounded away from zero, a usage error); a tool that miscounts the skipped
lines, rounds halves to even or exits 0 on wrong arguments fails them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rst_synth
from rst_synth.proposers.procedural.operators.logs.shipped import rollup_tool as shipped

LOG = (
    '{"kind": "buy", "amount": 0.125}\n{"kind": "buy", "amount": 2}\n\n{"kind": "sell"}\n'
    '{not json\n{"kind": 3, "amount": 1}\n{"kind": "fee", "amount": true}\n{"kind": "sell", "amount": -0.004}\n'
)


def tool(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "rollup"
    src = Path(rst_synth.__file__).parents[1]
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(src)!r})\n{body}")
    path.chmod(0o755)
    return path


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "events.jsonl"
    src.write_text(LOG)
    for name, value in {"SRC": str(src), "OUT": str(tmp_path / "rollup.csv"), "SEED": 7}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def reference(tmp_path: Path) -> Path:
    return tool(tmp_path, f"from {shipped.__name__} import main\nmain()\n")


def test_the_reference_passes_its_tests(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", str(reference(run)))
    done = shipped.run_tool(shipped.TOOL, shipped.SRC, "kind", "amount")
    assert done.returncode == 0 and done.stderr == b"skipped 3 lines\n"
    assert done.stdout.decode().splitlines() == ["kind,events,total", "buy,2,2.13", "sell,2,0.00"]
    Path(shipped.OUT).write_bytes(done.stdout)
    (run / "fresh").mkdir()
    shipped.test_rollup_of_the_log()
    shipped.test_tool_on_fresh_logs_with_bad_lines(run / "fresh")
    shipped.test_tool_usage_error()


WRONG = {
    "skipped miscounted": "",  # built below: the count on stderr one more than the lines skipped
    "halves to even": "import decimal\ndecimal.ROUND_HALF_UP = decimal.ROUND_HALF_EVEN\nmain()\n",
    "exits 0 on wrong arguments": "if len(sys.argv) != 4:\n    sys.exit(0)\nmain()\n",
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(run: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    body = f"from {shipped.__name__} import *\n"
    if wrong == "skipped miscounted":
        body += "_r = rollup\ndef rollup(lines, g, v):\n    rows, n = _r(lines, g, v)\n    return rows, n + 1\n"
        body += f"import {shipped.__name__} as m\nm.rollup = rollup\nm.main()\n"
    else:
        body += WRONG[wrong]
    monkeypatch.setattr(shipped, "TOOL", str(tool(run, body)))
    (run / "fresh").mkdir()
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_logs_with_bad_lines(run / "fresh")
        shipped.test_tool_usage_error()
