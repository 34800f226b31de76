"""Checks of the error summary, computed from the log itself."""
import collections
import json
from pathlib import Path

LOG = Path("/app/logs/access.log")
ERRORS = Path("/app/report/errors.json")


def log_fields():
    return [line.split() for line in LOG.read_text().splitlines() if line.strip()]


def test_error_totals():
    data = json.loads(ERRORS.read_text())
    fields = log_fields()
    errors = sum(1 for f in fields if int(f[8]) >= 400)
    assert data["total_requests"] == len(fields)
    assert data["error_requests"] == errors
    assert abs(data["error_rate"] - round(errors / len(fields), 4)) < 1e-9


def test_worst_paths():
    data = json.loads(ERRORS.read_text())
    counts = collections.Counter(f[6] for f in log_fields() if int(f[8]) >= 400)
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [(p["path"], p["errors"]) for p in data["worst_paths"]] == expected
