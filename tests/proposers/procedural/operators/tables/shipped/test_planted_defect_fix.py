"""The reference of planted-defect-fix, called directly: its report of a small table (padded keys, halves,
a zero total, values that are no decimal number) is exact and passes the tests; the rendered correct
tool passes them on fresh inputs, each planted tool and a subtly wrong report fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.planted_defect_fix import DEFECTS, report_tools
from rst_synth.proposers.procedural.operators.tables.shipped import planted_defect_fix as shipped

TABLE = (
    "region,amount,note\r\n"
    " north ,1.005,a\r\n"
    "north,2,b\r\n"
    '"Zürich, HQ",-0.004,c\r\n'
    "\r\n"
    "south,n/a,d\r\n"
    "south,12.5,e\r\n"
    "east,1e3,f\r\n"
    "west,10,g\r\n"
)
REPORT = 'region,count,total\nsouth,1,12.50\nwest,1,10.00\nnorth,2,3.01\n"Zürich, HQ",1,0.00\n'


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_bytes(TABLE.encode("utf-8"))
    monkeypatch.setattr(shipped, "SRC", str(src))
    monkeypatch.setattr(shipped, "OUT", str(tmp_path / "report.csv"))
    monkeypatch.setattr(shipped, "GROUP", "region")
    (tmp_path / "fresh").mkdir()
    return tmp_path


def test_the_reference_report_is_exact_and_passes(table: Path) -> None:
    shipped.report(shipped.SRC, shipped.OUT, "region", "amount")
    assert Path(shipped.OUT).read_bytes().decode("utf-8") == REPORT
    shipped.test_report_of_the_artifact()


def test_a_subtly_wrong_report_fails(table: Path) -> None:
    shipped.report(shipped.SRC, shipped.OUT, "region", "amount")
    wrong = REPORT.replace("0.00", "-0.00")
    Path(shipped.OUT).write_text(wrong, encoding="utf-8")
    with pytest.raises(AssertionError):
        shipped.test_report_of_the_artifact()


def test_the_fixed_tool_passes_on_fresh_inputs(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    correct, _ = report_tools("region", "amount", "off_by_one")
    (table / "report.py").write_text(correct, encoding="utf-8")
    monkeypatch.setattr(shipped, "TOOL", str(table / "report.py"))
    shipped.test_fixed_tool_on_fresh_inputs(table / "fresh")
    shipped.main(["report.py", shipped.SRC, shipped.OUT])
    assert Path(shipped.OUT).read_bytes().decode("utf-8") == REPORT


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_each_planted_tool_fails_on_fresh_inputs(table: Path, monkeypatch: pytest.MonkeyPatch, defect: str) -> None:
    _, planted = report_tools("region", "amount", defect)
    assert DEFECTS[defect][1] in planted
    (table / "report.py").write_text(planted, encoding="utf-8")
    monkeypatch.setattr(shipped, "TOOL", str(table / "report.py"))
    with pytest.raises(AssertionError):
        shipped.test_fixed_tool_on_fresh_inputs(table / "fresh")
