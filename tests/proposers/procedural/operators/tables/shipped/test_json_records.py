"""The reference of csv-to-json-records, called directly: its records pass its test; a number left a
string, a text read as a number, a record missing or a key renamed fails it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import json_records as shipped


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_text("code|amount|qty\n007|1.50|3\n010|2|1\n")
    for name, value in {
        "SRC": str(src),
        "DELIM": "|",
        "NUMERIC": ["amount", "qty"],
        "OUT": str(tmp_path / "r.json"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "r.json"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_records()
    assert json.loads(out.read_text()) == [
        {"code": "007", "amount": 1.5, "qty": 3},
        {"code": "010", "amount": 2, "qty": 1},
    ]
    shipped.test_one_record_per_row_in_order()


@pytest.mark.parametrize(
    "records",
    [
        [{"code": "007", "amount": "1.50", "qty": 3}, {"code": "010", "amount": 2, "qty": 1}],
        [{"code": 7, "amount": 1.5, "qty": 3}, {"code": "010", "amount": 2, "qty": 1}],
        [{"code": "007", "amount": 1.5, "qty": 3}],
        [{"code": "007", "amount": 1.5, "qty": 3}, {"code": "010", "amount": 2, "units": 1}],
        [{"code": "010", "amount": 2, "qty": 1}, {"code": "007", "amount": 1.5, "qty": 3}],
    ],
)
def test_wrong_records_fail(out: Path, records: list[dict[str, Any]]) -> None:
    out.write_text(json.dumps(records))
    with pytest.raises(AssertionError):
        shipped.test_one_record_per_row_in_order()
