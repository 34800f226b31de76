"""Checks of the reports, computed from the log itself."""
import collections
import csv
from pathlib import Path

LOG = Path("/app/logs/access.log")
REPORT = Path("/app/report")


def log_fields():
    return [line.split() for line in LOG.read_text().splitlines() if line.strip()]


def test_log_untouched():
    assert len(log_fields()) == 400


def test_status_counts_header_and_values():
    rows = list(csv.reader((REPORT / "status_counts.csv").open()))
    assert rows[0] == ["status", "count"]
    expected = collections.Counter(fields[8] for fields in log_fields())
    assert {r[0]: int(r[1]) for r in rows[1:]} == dict(expected)
    assert len(rows) - 1 == len(expected)


def test_status_counts_order():
    rows = list(csv.reader((REPORT / "status_counts.csv").open()))[1:]
    keys = [(-int(count), int(status)) for status, count in rows]
    assert keys == sorted(keys)


def test_top_clients():
    counts = collections.Counter(fields[0] for fields in log_fields())
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    lines = (REPORT / "top_clients.txt").read_text().split("\n")
    lines = [line for line in lines if line.strip()]
    assert [tuple(line.split()) for line in lines] == [(ip, str(n)) for ip, n in expected]
