"""The reference of csv-column-stats, called directly: its statistics pass its tests; a median of the
wrong middle, a mean off in the third decimal or a missing key fails them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import column_stats as shipped


@pytest.fixture
def stats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_text("id;amount;qty\n1;1.5;3\n2;2;1\n3;10;4\n4;0.25;2\n")
    for name, value in {
        "SRC": str(src),
        "DELIM": ";",
        "COLUMNS": ["amount", "qty"],
        "OUT": str(tmp_path / "s.json"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "s.json"


def test_the_reference_passes_its_tests(stats: Path) -> None:
    shipped.write_stats()
    assert json.loads(stats.read_text()) == {
        "amount": {"min": 0.25, "max": 10.0, "mean": 3.438, "median": 1.75},
        "qty": {"min": 1.0, "max": 4.0, "mean": 2.5, "median": 2.5},
    }
    shipped.test_column_stats()


@pytest.mark.parametrize(
    "amount",
    [
        {"min": 0.25, "max": 10.0, "mean": 3.438, "median": 2.0},  # the upper middle, not the average
        {"min": 0.25, "max": 10.0, "mean": 3.436, "median": 1.75},  # the mean off in the third decimal
        {"min": 0.25, "max": 10.0, "mean": 3.4375, "median": 1.75},  # the mean not rounded
        {"min": 0.25, "max": 10.0, "median": 1.75},  # no mean
    ],
)
def test_wrong_stats_fail(stats: Path, amount: dict[str, float]) -> None:
    qty = {"min": 1.0, "max": 4.0, "mean": 2.5, "median": 2.5}
    stats.write_text(json.dumps({"amount": amount, "qty": qty}))
    with pytest.raises(AssertionError):
        shipped.test_column_stats()
