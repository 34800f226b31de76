"""The reference of csv-interval-peak, called directly: its answer passes its tests (a row ending as
another starts still counts, rows ending before they start (in UTC) skipped); a peak one short, a later instant or
the wrong rows open fail them. Its timestamp rule is the one csv-time-buckets ships."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import interval_peak as shipped
from rst_synth.proposers.procedural.operators.tables.shipped import time_buckets
from rst_synth.proposers.procedural.shipping import render


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sessions.csv"
    src.write_text(
        "client,started_at,ended_at\n"
        "a,2026-03-01T10:00:00Z,2026-03-01T11:00:00Z\n"
        "b,2026-03-01T12:00:00+01:00,2026-03-01T10:30:00Z\n"  # starts 11:00 UTC, after its end: skipped
        "c,2026-03-01T10:30:00,2026-03-01T10:40:00\n"
        "f,2026-03-01T10:40:00Z,2026-03-01T10:50:00Z\n"  # starts as c ends: open with a and c
        "d,2026-03-01T12:00:00,2026-03-01T11:00:00\n"  # ends before it starts
        "e,,2026-03-01T10:00:00\n"
    )
    for name, value in {"SRC": str(src), "OUT": str(tmp_path / "peak.json")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "peak.json"


def test_the_reference_passes_its_tests(out: Path) -> None:
    shipped.write_peak()
    assert json.loads(out.read_text()) == {
        "peak": 3,
        "at": "2026-03-01T10:40:00Z",
        "open": ["a", "c", "f"],
        "skipped": 3,
    }
    shipped.test_peak_and_when()
    shipped.test_the_rows_open_at_the_peak()


@pytest.mark.parametrize(
    "answer",
    [
        {"peak": 2, "at": "2026-03-01T10:30:00Z", "open": ["a", "c"], "skipped": 3},  # touching rows apart
        {"peak": 3, "at": "2026-03-01T10:41:00Z", "open": ["a", "c", "f"], "skipped": 3},
        {"peak": 3, "at": "2026-03-01T10:40:00Z", "open": ["a", "b", "f"], "skipped": 3},
        {"peak": 3, "at": "2026-03-01T10:40:00Z", "open": ["a", "c", "f"], "skipped": 2},
    ],
)
def test_wrong_answers_fail(out: Path, answer: dict[str, Any]) -> None:
    out.write_text(json.dumps(answer))
    with pytest.raises(AssertionError):
        shipped.test_peak_and_when()
        shipped.test_the_rows_open_at_the_peak()


def test_the_timestamp_rule_ships_from_the_buckets_module() -> None:
    code = render(shipped, ["test_peak_and_when"])
    assert code.startswith(render(time_buckets, ["when"]).rstrip("\n"))
    assert code.count("def when(") == 1
