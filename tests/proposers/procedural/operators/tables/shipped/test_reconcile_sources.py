"""The reference of csv-reconcile-sources, called directly: on a small table and partner export (padded and
upper-case keys, equal decimals, a late and an early conflict, equal dates, records that are ignored) its
reconciliation is exact and passes the test, also as the rendered script; a wrong row fails it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import reconcile_sources as shipped
from rst_synth.proposers.procedural.shipping import python_script, render

OURS = "account,amount,note\nacme,5,a\nBeta ,2.50,b\ngamma,1,c\n\ndelta,7,d\n"
PARTNER = [
    {"key": " ACME ", "value": "5.00", "as_of": "2025-01-01"},  # equal as decimals: ours, source both
    {"key": "beta", "value": "3.00", "as_of": "2025-03-01"},  # on or after the cutoff: the partner's value
    {"key": "BETA", "value": "9", "as_of": "2025-01-01"},  # older: does not count
    {"key": "gamma", "value": "4", "as_of": "2025-01-01"},
    {"key": "gamma", "value": "6", "as_of": "2025-01-01"},  # the same date, later: counts, but before the cutoff
    {"key": "delta", "value": None, "as_of": "2025-06-01"},
    {"key": "delta", "value": "n/a", "as_of": "2025-06-01"},
    {"key": 5, "value": "1", "as_of": "2025-06-01"},
    {"key": "  new-1 ", "value": " 8.5 ", "as_of": "2025-01-01"},
]
RECONCILED = "account,amount,source\nacme,5,both\nBeta ,3.00,partner\ndelta,7,ours\ngamma,1,ours\nnew-1,8.5,partner\n"


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    (tmp_path / "ours.csv").write_text(OURS, encoding="utf-8")
    (tmp_path / "partner.json").write_text(json.dumps(PARTNER), encoding="utf-8")
    params = {
        "SRC": str(tmp_path / "ours.csv"),
        "PARTNER": str(tmp_path / "partner.json"),
        "KEY": "account",
        "VALUE": "amount",
        "CUTOFF": "2025-02-28",
        "OUT": str(tmp_path / "reconciled.csv"),
    }
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    return params


def test_the_reference_reconciles_by_the_rules(sources: dict[str, str]) -> None:
    shipped.main()
    assert Path(shipped.OUT).read_text(encoding="utf-8") == RECONCILED
    shipped.test_reconciled_by_the_rules()


def test_the_rendered_script_writes_the_same(sources: dict[str, str]) -> None:
    script = python_script(render(shipped, ["main"], **sources), "main()")
    done = subprocess.run(["bash", "-c", script], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert Path(shipped.OUT).read_text(encoding="utf-8") == RECONCILED


@pytest.mark.parametrize(
    "wrong",
    [
        RECONCILED.replace("gamma,1,ours", "gamma,6,partner"),  # the partner won before the cutoff
        RECONCILED.replace("acme,5,both", "acme,5.00,both"),  # the partner's spelling of an equal value
        RECONCILED.replace("Beta ,", "beta,"),  # our key not as in our file
        RECONCILED.replace("delta,7,ours\n", ""),  # a key only we have dropped
    ],
)
def test_a_wrong_reconciliation_fails(sources: dict[str, str], wrong: str) -> None:
    Path(shipped.OUT).write_text(wrong, encoding="utf-8")
    with pytest.raises(AssertionError):
        shipped.test_reconciled_by_the_rules()
