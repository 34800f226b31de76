"""The reference of csv-stream-summary, called directly: `plant` writes the large gzip input, its `main` as a
tool summarises it and passes the tests (under the memory cap, CRLF, a header alone, an empty input); a tool
that drops the last line, crashes on an empty input or orders the groups by their total fails them."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

import rst_synth
from rst_synth.proposers.procedural.operators.tables.shipped import stream_summary as shipped


def tool(tmp_path: Path, body: str) -> str:
    path = tmp_path / "stream"
    src = Path(rst_synth.__file__).parents[1]
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(src)!r})\n{body}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    params = {
        "PLANTED": str(tmp_path / "incoming"),
        "BIG": str(tmp_path / "incoming" / "sales_large.csv.gz"),
        "OUT": str(tmp_path / "summary.csv"),
        "ROWS": 2000,
        "TEST_ROWS": 5000,
        "SEED": 11,
    }
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def test_plant_writes_the_large_input(run: Path) -> None:
    shipped.plant()
    with gzip.open(shipped.BIG, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert lines[0] == ",".join(shipped.HEADER) and len(lines) == 1 + shipped.ROWS
    assert {line.split(",")[0] for line in lines[1:]} <= set(shipped.GROUPS)


def test_summarise_rounds_exactly() -> None:
    lines = ["g,amount\n", "a,0.005\n", "b,-0.004\n", "a,1\n", "\n"]
    assert shipped.summarise(lines, "g", "amount") == [
        ["g", "rows", "total", "min", "max"],
        ["a", "2", "1.01", "0.01", "1.00"],
        ["b", "1", "0.00", "0.00", "0.00"],
    ]
    assert shipped.summarise([], "g", "amount") == [["g", "rows", "total", "min", "max"]]


def test_the_reference_passes_its_tests(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped.plant()
    monkeypatch.setattr(shipped, "TOOL", tool(run, f"from {shipped.__name__} import main\nmain()\n"))
    with gzip.open(shipped.BIG, "rb") as f:
        done = subprocess.run([shipped.TOOL], input=f.read(), capture_output=True, check=True)
    Path(shipped.OUT).write_bytes(done.stdout)
    shipped.test_summary_of_the_large_input()
    shipped.test_tool_streams_a_large_input_under_the_memory_cap()
    shipped.test_tool_on_edge_inputs()


WRONG = {
    "last line dropped": (
        "import io\nlines = sys.stdin.buffer.read().splitlines(keepends=True)\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b''.join(lines[:-1])))\n{main}main()\n"
    ),
    "empty input crashes": "if not sys.stdin.buffer.peek(1):\n    sys.exit(1)\n{main}main()\n",
    "ordered by total": (
        "import csv\n{main}import io\nout = io.StringIO()\nsys.stdout, real = out, sys.stdout\nmain()\n"
        "rows = list(csv.reader(io.StringIO(out.getvalue())))\n"
        "rows[1:] = sorted(rows[1:], key=lambda r: float(r[2]))\n"
        "csv.writer(real, lineterminator='\\n').writerows(rows)\n"
    ),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(run: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    body = WRONG[wrong].format(main=f"from {shipped.__name__} import main\n")
    monkeypatch.setattr(shipped, "TOOL", tool(run, body))
    with pytest.raises(AssertionError):
        shipped.test_tool_streams_a_large_input_under_the_memory_cap()
        shipped.test_tool_on_edge_inputs()
