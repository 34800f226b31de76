"""The reference of jsonl-group-shares, called directly: its report passes its tests (blank lines skipped);
an event miscounted, a total off by a cent, a share off by a tenth or rows out of order fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.logs.shipped import group_shares as shipped

HEADER = "kind,events,total_amount,share_pct"


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "events.jsonl"
    src.write_text(
        '{"kind": "buy", "amount": 2.5}\n\n{"kind": "sell", "amount": 1}\n{"kind": "buy", "amount": 0.5}\n'
        '{"kind": "fee", "amount": 1}\n'
    )
    for name, value in {"SRC": str(src), "OUT": str(tmp_path / "shares.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "shares.csv"


def test_the_reference_passes_its_tests(out: Path) -> None:
    shipped.write_shares()
    assert out.read_text().splitlines() == [HEADER, "buy,2,3.00,60.0", "fee,1,1.00,20.0", "sell,1,1.00,20.0"]
    shipped.test_header_counts_and_totals()
    shipped.test_shares_make_the_whole()


@pytest.mark.parametrize(
    "rows",
    [
        ["buy,3,3.00,60.0", "fee,1,1.00,20.0", "sell,1,1.00,20.0"],  # a blank line counted
        ["buy,2,3.01,60.0", "fee,1,1.00,20.0", "sell,1,1.00,20.0"],
        ["buy,2,3.00,60.1", "fee,1,1.00,20.0", "sell,1,1.00,19.9"],
        ["buy,2,3.00,60.0", "sell,1,1.00,20.0", "fee,1,1.00,20.0"],  # a tie not broken by value
        ["buy,2,3.00,60", "fee,1,1.00,20.0", "sell,1,1.00,20.0"],  # no decimal
    ],
)
def test_wrong_reports_fail(out: Path, rows: list[str]) -> None:
    out.write_text("\n".join([HEADER, *rows]) + "\n")
    with pytest.raises(AssertionError):
        shipped.test_header_counts_and_totals()
        shipped.test_shares_make_the_whole()
