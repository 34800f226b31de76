"""The reference tool of text-records-tool, called directly and as the executable a step writes (rendered from
the shipped module): it passes its tests; a tool that keeps the CR of CRLF lines, misses a malformed line or
accepts N = 0 fails them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.text.shipped import records_top as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

RECORDS = (
    "# id key amount\r\nx1 north 1.005\r\nx2 south 2\r\nx3 north 0.5\r\nshort\r\nx4 east 12,5\r\n\r\nx5 west -0.004\r\n"
)


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "records.txt").write_text(RECORDS, newline="")
    params = {"SRC": str(tmp_path / "records.txt"), "OUT": str(tmp_path / "top.tsv"), "KEY": 2, "VALUE": 3}
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    monkeypatch.setattr(shipped, "TOOL", tool_file(tmp_path / "top", render(shipped, ["main"], KEY=2, VALUE=3)))
    return tmp_path


def test_the_reference_passes_its_tests(records: Path) -> None:
    text, malformed = shipped.top(RECORDS, 5, 2, 3)
    assert text == "key\tsum\nsouth\t2.00\nnorth\t1.51\nwest\t0.00\n"
    assert malformed == [5, 6]
    (records / "top.tsv").write_text(text)
    shipped.test_top_of_the_artifact()
    shipped.test_tool_on_fresh_inputs(records)
    shipped.test_tool_edge_cases(records)


@pytest.mark.parametrize(
    "change",
    [
        ('line.removesuffix("\\r")', "line"),  # the CR of CRLF lines kept
        ("malformed.append(number)", "pass"),
    ],
)
def test_a_wrong_tool_fails(records: Path, change: tuple[str, str]) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"], KEY=2, VALUE=3), wrong=change)
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_inputs(records)


def test_a_tool_accepting_zero_fails(records: Path) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"], KEY=2, VALUE=3).replace("int(argv[1]) < 1", "False"))
    with pytest.raises(AssertionError):
        shipped.test_tool_edge_cases(records)
