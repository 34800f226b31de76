"""The reference of json-numeric-summary, called directly: its summary passes its test; a mean off by more
than the rounding, a value not rounded to 3 places, a count as a boolean or an extra key fails it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.json_docs.shipped import numeric_summary as shipped

RECORDS = [{"amount": v} for v in [12.5, 3.25, 7.125, 0.3333, 1]]
RIGHT = {"count": 5, "max": 12.5, "mean": 4.842, "min": 0.333, "sum": 24.208}


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "items.json"
    src.write_text(json.dumps(RECORDS), encoding="utf-8")
    for name, value in {"SRC": str(src), "KEY": "amount", "OUT": str(tmp_path / "summary.json")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "summary.json"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_summary()
    assert json.loads(out.read_text()) == RIGHT
    shipped.test_summary_of_key()


@pytest.mark.parametrize(
    "change",
    [{"mean": 4.843}, {"min": 0.3333}, {"sum": 24.2083}, {"count": 4}, {"extra": 1}, {"max": "12.5"}],
)
def test_a_wrong_summary_fails(out: Path, change: dict[str, object]) -> None:
    out.write_text(json.dumps({**RIGHT, **change}))
    with pytest.raises(AssertionError):
        shipped.test_summary_of_key()


def test_a_boolean_count_fails(out: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    src = tmp_path / "one.json"
    src.write_text(json.dumps([{"amount": 2}]))
    monkeypatch.setattr(shipped, "SRC", str(src))
    out.write_text(json.dumps({"count": True, "max": 2, "mean": 2, "min": 2, "sum": 2}))
    with pytest.raises(AssertionError):
        shipped.test_summary_of_key()
